// Command kai-cases converts the data-driven scheduler-action tests of KAI Scheduler v0.16.4
// (pkg/scheduler/actions/...) into neutral JSON test cases for kaisim.
//
//	go run . -kai /path/to/kai-src -out ../../tests/kai_cases
//
// It parses the Go test files with go/ast and evaluates the test-table literals with a small
// interpreter (interp.go, exec.go); nothing from KAI is imported or compiled.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const kaiVersion = "v0.16.4"

var unitKinds = []string{"allocate", "reclaim", "preempt", "consolidation", "stalegangeviction"}

type skipped struct {
	name   string
	line   int
	reason string
}

type fileReport struct {
	file      string
	kind      string
	found     int
	converted int
	skips     []skipped
	handmade  []string // Test functions without a table (hand-written assertions)
}

func main() {
	kai := flag.String("kai", "", "root of an extracted KAI Scheduler source tree (the directory that contains pkg/)")
	out := flag.String("out", "", "output directory (tests/kai_cases)")
	flag.Parse()
	if *kai == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: kai-cases -kai /path/to/kai-src -out /path/to/tests/kai_cases")
		os.Exit(2)
	}
	root, err := filepath.Abs(*kai)
	check(err)
	if _, err := os.Stat(filepath.Join(root, "pkg/scheduler/actions")); err != nil {
		fmt.Fprintf(os.Stderr, "kai-cases: %s does not look like a KAI source tree (no pkg/scheduler/actions)\n", *kai)
		os.Exit(2)
	}
	in := NewInterp(root)

	type target struct {
		kind, dir string
	}
	targets := []target{}
	for _, k := range unitKinds {
		targets = append(targets, target{k, filepath.Join(root, "pkg/scheduler/actions", k)})
	}
	itDirs, _ := filepath.Glob(filepath.Join(root, "pkg/scheduler/actions/integration_tests/*"))
	sort.Strings(itDirs)
	for _, d := range itDirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() && filepath.Base(d) != "integration_tests_utils" {
			targets = append(targets, target{"integration", d})
		}
	}

	reports := []*fileReport{}
	written := map[string]string{}
	for _, t := range targets {
		files, _ := filepath.Glob(filepath.Join(t.dir, "*_test.go"))
		sort.Strings(files)
		for _, f := range files {
			rep, cases := convertFile(in, root, t.kind, f)
			reports = append(reports, rep)
			if rep.found == 0 {
				continue
			}
			stem := strings.TrimSuffix(filepath.Base(f), "_test.go")
			outName := stem + ".json"
			if prev, dup := written[t.kind+"/"+outName]; dup {
				fmt.Fprintf(os.Stderr, "kai-cases: %s and %s map to the same output name; prefixing with the directory\n", prev, rep.file)
				outName = filepath.Base(filepath.Dir(f)) + "_" + stem + ".json"
			}
			written[t.kind+"/"+outName] = rep.file
			doc := newOM()
			doc.Put("source", rep.file+"@"+kaiVersion)
			doc.Put("cases", cases)
			sk := []interface{}{}
			for _, s := range rep.skips {
				so := newOM()
				so.Put("name", s.name)
				so.Put("source_line", int64(s.line))
				so.Put("reason", s.reason)
				sk = append(sk, so)
			}
			doc.Put("skipped", sk)
			data, err := indentJSON(doc)
			check(err)
			dir := filepath.Join(*out, t.kind)
			check(os.MkdirAll(dir, 0o755))
			check(os.WriteFile(filepath.Join(dir, outName), data, 0o644))
		}
	}
	printReport(reports)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "kai-cases:", err)
		os.Exit(1)
	}
}

func printReport(reports []*fileReport) {
	fmt.Printf("%-95s %6s %9s %7s\n", "file", "found", "converted", "skipped")
	perKind := map[string][3]int{}
	kinds := []string{}
	for _, r := range reports {
		fmt.Printf("%-95s %6d %9d %7d\n", r.file, r.found, r.converted, r.found-r.converted)
		for _, s := range r.skips {
			fmt.Printf("    skipped line %d %q: %s\n", s.line, s.name, s.reason)
		}
		for _, h := range r.handmade {
			fmt.Printf("    not a table: %s (hand-written assertions, not converted)\n", h)
		}
		if _, ok := perKind[r.kind]; !ok {
			kinds = append(kinds, r.kind)
		}
		c := perKind[r.kind]
		c[0] += r.found
		c[1] += r.converted
		c[2] += r.found - r.converted
		perKind[r.kind] = c
	}
	fmt.Println()
	fmt.Printf("%-20s %6s %9s %7s\n", "kind", "found", "converted", "skipped")
	tot := [3]int{}
	for _, k := range kinds {
		c := perKind[k]
		fmt.Printf("%-20s %6d %9d %7d\n", k, c[0], c[1], c[2])
		for i := range tot {
			tot[i] += c[i]
		}
	}
	fmt.Printf("%-20s %6d %9d %7d\n", "total", tot[0], tot[1], tot[2])
}

// ---------------------------------------------------------------------------------------------

type caseSource struct {
	getter *funcDef          // zero-argument function returning a table
	inline *ast.CompositeLit // table literal inside the test function
	count  int               // statically counted table elements
	lines  []int
	names  []string
}

func convertFile(in *Interp, root, kind, path string) (*fileReport, []interface{}) {
	rel, _ := filepath.Rel(root, path)
	rel = filepath.ToSlash(rel)
	rep := &fileReport{file: rel, kind: kind}
	var cases []interface{}

	// parse the file alone first to learn its package name
	pkgName := peekPackage(path)
	dir := filepath.Dir(path)
	pkg, err := in.loadDir("test:"+dir+":"+pkgName, dir, true, pkgName)
	if err != nil {
		rep.skips = append(rep.skips, skipped{name: "(file)", reason: "parse error: " + err.Error()})
		return rep, nil
	}
	var file *File
	for _, f := range pkg.files {
		if f.path == rel {
			file = f
		}
	}
	if file == nil {
		return rep, nil
	}
	findLocalCaseTypes(in, file)

	seenGetters := map[string]bool{}
	for _, d := range file.ast.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Body == nil {
			continue
		}
		meta := testFuncMeta(in, file, fd, kind)
		sources := findCaseSources(in, file, fd, seenGetters)
		if len(sources) == 0 {
			rep.handmade = append(rep.handmade, fd.Name.Name)
			continue
		}
		for _, src := range sources {
			rep.found += src.count
			var table Value
			evalErr := ""
			func() {
				defer func() {
					if r := recover(); r != nil {
						if ee, ok := r.(*evalError); ok {
							evalErr = ee.msg
							return
						}
						panic(r)
					}
				}()
				c := &ctx{file: file, env: newEnv(nil)}
				if src.getter != nil {
					table = in.callClosure(&Closure{decl: src.getter.decl.Type, body: src.getter.decl.Body,
						file: src.getter.file, name: src.getter.decl.Name.Name}, nil, false)
				} else {
					table = in.eval(c, src.inline)
				}
			}()
			if evalErr != "" {
				for i := 0; i < src.count; i++ {
					rep.skips = append(rep.skips, skipped{name: src.names[i], line: src.lines[i], reason: "table evaluation failed: " + evalErr})
				}
				continue
			}
			elems := sliceOf(table)
			for _, e := range elems {
				if ce, ok := e.(*CaseErr); ok {
					rep.skips = append(rep.skips, skipped{name: nameAtLine(src, ce.Line), line: ce.Line, reason: ce.Msg})
					continue
				}
				meta.sourceFile = rel
				c, _, err := shapeCase(e, meta)
				if err != nil {
					line := 0
					if s, ok := e.(*Struct); ok {
						line = s.Line
					}
					rep.skips = append(rep.skips, skipped{name: nameAtLine(src, line), line: line, reason: err.Error()})
					continue
				}
				cases = append(cases, c)
				rep.converted++
			}
			if len(elems) != src.count {
				rep.found += len(elems) - src.count // tables built by loops or appends
			}
		}
	}
	return rep, cases
}

func nameAtLine(src caseSource, line int) string {
	for i, l := range src.lines {
		if l == line {
			return src.names[i]
		}
	}
	return ""
}

func peekPackage(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "package ") {
			return strings.TrimSpace(strings.TrimPrefix(l, "package "))
		}
	}
	return ""
}

// findLocalCaseTypes registers struct types declared inside functions that wrap a
// test_utils.TestTopologyBasic (e.g. stalegangeviction_test.go's {name, topology}).
func findLocalCaseTypes(in *Interp, f *File) {
	ast.Inspect(f.ast, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return true
		}
		for _, fl := range st.Fields.List {
			if in.canonicalTypeName(f, fl.Type) == "test_utils.TestTopologyBasic" {
				localCaseTypes[f.path+"."+ts.Name.Name] = true
				localTypeSpecs[f.path+"."+ts.Name.Name] = ts
			}
		}
		return true
	})
}

// findCaseSources lists the tables a Test function runs: table literals written in its body
// and zero-argument functions of the package that return a table.
func findCaseSources(in *Interp, f *File, fd *ast.FuncDecl, seen map[string]bool) []caseSource {
	var out []caseSource
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CompositeLit:
			if at, ok := x.Type.(*ast.ArrayType); ok && in.isCaseType(f, at.Elt) {
				src := caseSource{inline: x}
				countElems(in, f, x, &src)
				out = append(out, src)
				return false
			}
		case *ast.CallExpr:
			id, ok := x.Fun.(*ast.Ident)
			if !ok || len(x.Args) != 0 {
				return true
			}
			def, ok := f.pkg.funcs[id.Name]
			if !ok || seen[id.Name] || !returnsTable(in, def) {
				return true
			}
			seen[id.Name] = true
			src := caseSource{getter: def}
			ast.Inspect(def.decl.Body, func(n ast.Node) bool {
				if cl, ok := n.(*ast.CompositeLit); ok {
					if at, ok := cl.Type.(*ast.ArrayType); ok && in.isCaseType(def.file, at.Elt) {
						countElems(in, def.file, cl, &src)
						return false
					}
				}
				return true
			})
			out = append(out, src)
		}
		return true
	})
	return out
}

func returnsTable(in *Interp, def *funcDef) bool {
	r := def.decl.Type.Results
	if r == nil || len(r.List) != 1 {
		return false
	}
	at, ok := r.List[0].Type.(*ast.ArrayType)
	return ok && in.isCaseType(def.file, at.Elt)
}

func countElems(in *Interp, f *File, cl *ast.CompositeLit, src *caseSource) {
	for _, el := range cl.Elts {
		src.count++
		src.lines = append(src.lines, in.line(el.Pos()))
		src.names = append(src.names, staticCaseName(el))
	}
}

// staticCaseName finds a Name: "..." (or name: "...") string in a table element without
// evaluating it (used for reporting skipped cases).
func staticCaseName(el ast.Expr) string {
	name := ""
	ast.Inspect(el, func(n ast.Node) bool {
		if name != "" {
			return false
		}
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		if k, ok := kv.Key.(*ast.Ident); ok && strings.EqualFold(k.Name, "name") {
			if bl, ok := kv.Value.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				name = strings.Trim(bl.Value, "\"`")
			}
		}
		return true
	})
	return name
}

// testFuncMeta inspects how a Test function runs its cases.
func testFuncMeta(in *Interp, f *File, fd *ast.FuncDecl, kind string) caseMeta {
	meta := caseMeta{testFunc: fd.Name.Name, featureGates: map[string]bool{}}
	usesRunTests := false
	var actions []string
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			if path, ok := f.imports[id.Name]; ok {
				switch {
				case strings.HasSuffix(path, "/integration_tests_utils") && (sel.Sel.Name == "RunTests" || sel.Sel.Name == "RunTest"):
					usesRunTests = true
				case strings.Contains(path, "/pkg/scheduler/actions/") && sel.Sel.Name == "New":
					actions = append(actions, path[strings.LastIndex(path, "/")+1:])
				case strings.HasSuffix(path, "/feature_gates") && sel.Sel.Name == "SetDynamicResourcesEnabledForTest":
					if len(call.Args) == 1 {
						if b, ok := call.Args[0].(*ast.Ident); ok && b.Name == "true" {
							meta.featureGates["DynamicResources"] = true
						}
					}
				}
			}
		}
		if sel.Sel.Name == "OverrideGlobalDefaultStalenessGracePeriod" && len(call.Args) == 1 {
			func() {
				defer func() { recover() }()
				v := in.eval(&ctx{file: f, env: newEnv(nil)}, call.Args[0])
				meta.stalenessS = toFloat(v) / 1e9
			}()
		}
		return true
	})
	switch {
	case kind != "integration":
		meta.kind = "unit:" + kind
	case usesRunTests:
		meta.kind = "integration"
	default:
		meta.kind = "single-session"
		meta.actions = actions
	}
	return meta
}
