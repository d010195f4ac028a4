/* A stand-in for libnvidia-ml.so.1 with two GPUs, for testing the dlopen
   binding without a driver: the values are those the test expects, and
   arguments that NVML would reject are rejected here too. */
#include <stdio.h>

typedef int nvmlReturn_t;
struct dev { unsigned int index; };
typedef struct dev *nvmlDevice_t;

static struct dev devs[2] = {{0}, {1}};
static int refs;
static unsigned long long reads;

static int valid(nvmlDevice_t d) { return refs > 0 && (d == &devs[0] || d == &devs[1]); }

nvmlReturn_t nvmlInit_v2(void) { refs++; return 0; }
nvmlReturn_t nvmlShutdown(void) { if (refs == 0) return 1; refs--; return 0; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { if (!refs) return 1; *n = 2; return 0; }
nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len) {
	if (len < 80) return 7;
	snprintf(v, len, "570.86.15");
	return 0;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) {
	if (!refs) return 1;
	if (i >= 2) return 2;
	*d = &devs[i];
	return 0;
}
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len) {
	if (!valid(d)) return 2;
	snprintf(name, len, "NVIDIA H200");
	return 0;
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len) {
	if (!valid(d)) return 2;
	snprintf(uuid, len, "GPU-0dc1b3ff-%u", d->index);
	return 0;
}
/* Above 2^32 mJ, so a 32-bit slip shows; each read of GPU 0 adds 83,305,417 mJ. */
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj) {
	if (!valid(d)) return 2;
	if (d->index == 1) return 3; /* NOT_SUPPORTED: a GPU without the counter */
	*mj = 902884513377ULL + 83305417ULL * reads++;
	return 0;
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw) {
	if (!valid(d)) return 2;
	*mw = 697412 + d->index;
	return 0;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *c) {
	if (!valid(d) || sensor != 0) return 2;
	*c = 64;
	return 0;
}
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz) {
	if (!valid(d) || type != 1) return 2;
	*mhz = 1980;
	return 0;
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw) {
	if (!valid(d)) return 2;
	*mw = 700000;
	return 0;
}
