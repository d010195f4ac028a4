package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNoAnyInExportedAPI: no exported type, field or signature of the
// library (the module's packages outside cmd/, internal/ and examples/)
// is `any` or `interface{}`, so that go doc shows what each value holds.
func TestNoAnyInExportedAPI(t *testing.T) {
	t.Parallel()
	top := root(t)
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(top, p)
		first := strings.Split(filepath.ToSlash(rel), "/")[0]
		if d.IsDir() {
			if slices.Contains([]string{".git", "cmd", "internal", "examples", "testdata", "bench", "deploy", "docs"}, first) || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		report := func(where string, n ast.Node) {
			if holdsAny(n) {
				found = append(found, fset.Position(n.Pos()).String()+": "+where)
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					if st, ok := ts.Type.(*ast.StructType); ok {
						for _, fld := range st.Fields.List {
							if exportedField(fld) {
								report("type "+ts.Name.Name+" field", fld.Type)
							}
						}
						continue
					}
					report("type "+ts.Name.Name, ts.Type)
				}
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
					continue
				}
				report("func "+d.Name.Name, d.Type)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s holds any: give it a type", f)
	}
}

// exportedField reports whether a struct field is in go doc: a named
// exported field, or an embedded one.
func exportedField(f *ast.Field) bool {
	if len(f.Names) == 0 {
		return true
	}
	return slices.ContainsFunc(f.Names, (*ast.Ident).IsExported)
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(r *ast.FieldList) bool {
	if len(r.List) == 0 {
		return false
	}
	x := r.List[0].Type
	if s, ok := x.(*ast.StarExpr); ok {
		x = s.X
	}
	switch e := x.(type) {
	case *ast.IndexExpr:
		x = e.X
	case *ast.IndexListExpr:
		x = e.X
	}
	id, ok := x.(*ast.Ident)
	return ok && id.IsExported()
}

// holdsAny reports whether a type expression names any or interface{}.
// Generic constraints ([T any]) are not values and are not looked at:
// only the function type's parameters and results are walked.
func holdsAny(n ast.Node) bool {
	if ft, ok := n.(*ast.FuncType); ok {
		return holdsAnyList(ft.Params) || holdsAnyList(ft.Results)
	}
	hit := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if x.Name == "any" {
				hit = true
			}
		case *ast.InterfaceType:
			if len(x.Methods.List) == 0 {
				hit = true
			}
		case *ast.FuncType:
			if holdsAnyList(x.Params) || holdsAnyList(x.Results) {
				hit = true
			}
			return false
		}
		return !hit
	})
	return hit
}

func holdsAnyList(l *ast.FieldList) bool {
	if l == nil {
		return false
	}
	for _, f := range l.List {
		if holdsAny(f.Type) {
			return true
		}
	}
	return false
}
