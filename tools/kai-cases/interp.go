package main

// A small tree-walking interpreter for the subset of Go used by KAI's test tables:
// composite literals, constants (with iota), arithmetic, local helper functions, closures,
// for / range / if statements, append / make / len, fmt.Sprintf, and a few stubs for helpers
// of KAI's test utilities (see stubs.go). Anything outside this subset raises an evalError,
// and the case that needed it is reported as skipped.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const kaiModule = "github.com/kai-scheduler/KAI-scheduler"

type Interp struct {
	root  string // root of the extracted KAI source tree
	fset  *token.FileSet
	pkgs  map[string]*Pkg // by import path (KAI packages) or by directory (test packages)
	stubs map[string]Value
}

type Pkg struct {
	key     string
	name    string
	dir     string
	files   []*File
	funcs   map[string]*funcDef
	consts  map[string]*lazy
	vars    map[string]*lazy
	types   map[string]*typeDef
	inTests bool
}

type File struct {
	pkg     *Pkg
	path    string // path relative to the KAI root
	ast     *ast.File
	imports map[string]string // local name -> import path
}

type funcDef struct {
	decl *ast.FuncDecl
	file *File
}

type typeDef struct {
	spec *ast.TypeSpec
	file *File
}

type lazy struct {
	name     string
	expr     ast.Expr // nil for zero value
	typ      ast.Expr
	iota     int64
	file     *File
	state    int // 0 new, 1 evaluating, 2 done
	val      Value
	isConst  bool
	failWith string
}

type Env struct {
	vars   map[string]*Value
	parent *Env
}

func newEnv(parent *Env) *Env { return &Env{vars: map[string]*Value{}, parent: parent} }

func (e *Env) lookup(name string) (*Value, bool) {
	for s := e; s != nil; s = s.parent {
		if p, ok := s.vars[name]; ok {
			return p, true
		}
	}
	return nil, false
}

func (e *Env) define(name string, v Value) {
	if name == "_" {
		return
	}
	val := v
	e.vars[name] = &val
}

type ctx struct {
	file *File
	env  *Env
	iota *int64
}

func NewInterp(root string) *Interp {
	in := &Interp{root: root, fset: token.NewFileSet(), pkgs: map[string]*Pkg{}}
	in.stubs = buildStubs()
	return in
}

func (in *Interp) line(p token.Pos) int { return in.fset.Position(p).Line }

// loadDir parses the .go files of a directory. withTests selects the _test.go files of the given
// package name (test packages) instead of the non-test files.
func (in *Interp) loadDir(key, dir string, tests bool, pkgName string) (*Pkg, error) {
	if p, ok := in.pkgs[key]; ok {
		return p, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &Pkg{key: key, dir: dir, funcs: map[string]*funcDef{}, consts: map[string]*lazy{},
		vars: map[string]*lazy{}, types: map[string]*typeDef{}, inTests: tests}
	names := []string{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") {
			continue
		}
		if strings.HasSuffix(n, "_test.go") != tests {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		full := filepath.Join(dir, n)
		af, err := parser.ParseFile(in.fset, full, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if pkgName != "" && af.Name.Name != pkgName {
			continue
		}
		rel, _ := filepath.Rel(in.root, full)
		f := &File{pkg: p, path: filepath.ToSlash(rel), ast: af, imports: map[string]string{}}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			local := ""
			if imp.Name != nil {
				local = imp.Name.Name
			} else {
				local = in.defaultImportName(path)
			}
			if local == "." || local == "_" {
				continue
			}
			f.imports[local] = path
		}
		p.name = af.Name.Name
		p.files = append(p.files, f)
		in.indexFile(p, f)
	}
	in.pkgs[key] = p
	return p, nil
}

func (in *Interp) indexFile(p *Pkg, f *File) {
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				p.funcs[d.Name.Name] = &funcDef{decl: d, file: f}
			}
		case *ast.GenDecl:
			switch d.Tok {
			case token.CONST:
				var lastExprs []ast.Expr
				var lastType ast.Expr
				for i, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					if len(vs.Values) > 0 {
						lastExprs = vs.Values
						lastType = vs.Type
					}
					for j, n := range vs.Names {
						var e ast.Expr
						if j < len(lastExprs) {
							e = lastExprs[j]
						}
						p.consts[n.Name] = &lazy{name: n.Name, expr: e, typ: lastType, iota: int64(i), file: f, isConst: true}
					}
				}
			case token.VAR:
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					for j, n := range vs.Names {
						var e ast.Expr
						if j < len(vs.Values) {
							e = vs.Values[j]
						}
						p.vars[n.Name] = &lazy{name: n.Name, expr: e, typ: vs.Type, file: f}
					}
				}
			case token.TYPE:
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					p.types[ts.Name.Name] = &typeDef{spec: ts, file: f}
				}
			}
		}
	}
}

// defaultImportName guesses the package name of an import without a local name. For KAI
// packages it reads the package clause; for others the last path element (with the usual
// ".vN" / "-go" suffixes removed).
func (in *Interp) defaultImportName(path string) string {
	if strings.HasPrefix(path, kaiModule+"/") {
		if p, err := in.kaiPkg(path); err == nil && p.name != "" {
			return p.name
		}
	}
	last := path[strings.LastIndex(path, "/")+1:]
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	return last
}

func (in *Interp) kaiPkg(path string) (*Pkg, error) {
	rel := strings.TrimPrefix(path, kaiModule+"/")
	return in.loadDir(path, filepath.Join(in.root, filepath.FromSlash(rel)), false, "")
}

// ---------------------------------------------------------------------------------------------
// package-level identifiers

func (in *Interp) pkgIdent(p *Pkg, name string) (Value, bool) {
	if l, ok := p.consts[name]; ok {
		return in.evalLazy(p, l), true
	}
	if l, ok := p.vars[name]; ok {
		return in.evalLazy(p, l), true
	}
	if f, ok := p.funcs[name]; ok {
		return &Closure{decl: f.decl.Type, body: f.decl.Body, env: nil, file: f.file, name: name}, true
	}
	if t, ok := p.types[name]; ok {
		return &TypeRef{Name: p.name + "." + name, Kind: in.typeKind(t.file, t.spec.Type)}, true
	}
	return nil, false
}

func (in *Interp) evalLazy(p *Pkg, l *lazy) Value {
	switch l.state {
	case 2:
		if l.failWith != "" {
			fail("%s", l.failWith)
		}
		return l.val
	case 1:
		fail("initialisation cycle at %s", l.name)
	}
	l.state = 1
	defer func() {
		if r := recover(); r != nil {
			if ee, ok := r.(*evalError); ok {
				l.failWith = ee.msg
				l.state = 2
			}
			panic(r)
		}
	}()
	c := &ctx{file: l.file, env: newEnv(nil)}
	if l.isConst {
		io := l.iota
		c.iota = &io
	}
	var v Value
	if l.expr != nil {
		v = in.evalHint(c, l.expr, l.typ)
	} else {
		v = in.zeroValue(c, l.typ)
	}
	if l.isConst && l.typ != nil {
		if tn, ok := l.typ.(*ast.Ident); ok && !isBuiltinType(tn.Name) {
			v = &Enum{Type: p.name + "." + tn.Name, Name: l.name, Val: unwrap(v)}
		} else if ok {
			v = convertBasic(tn.Name, v)
		}
	}
	l.val = v
	l.state = 2
	return v
}

func isBuiltinType(n string) bool {
	switch n {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
		"float32", "float64", "string", "bool", "byte", "rune", "uintptr":
		return true
	}
	return false
}

func convertBasic(typ string, v Value) Value {
	switch typ {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "byte", "rune", "uintptr":
		return toInt(v)
	case "float32", "float64":
		return toFloat(v)
	case "string":
		if isNumber(v) {
			return string(rune(toInt(v)))
		}
		return toStr(v)
	case "bool":
		return toBool(v)
	}
	return v
}

// typeKind reports the basic kind of a type expression (for conversions).
func (in *Interp) typeKind(f *File, t ast.Expr) string {
	switch t := t.(type) {
	case *ast.Ident:
		if isBuiltinType(t.Name) {
			switch t.Name {
			case "float32", "float64":
				return "float"
			case "string":
				return "string"
			case "bool":
				return "bool"
			}
			return "int"
		}
		if td, ok := f.pkg.types[t.Name]; ok {
			return in.typeKind(td.file, td.spec.Type)
		}
	}
	return "any"
}

// typeName renders a type expression as a qualified name ("jobs_fake.TestJobBasic"),
// stripping pointers. Local (unqualified) names are returned as is.
func typeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.ParenExpr:
		return typeName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			return x.Name + "." + t.Sel.Name
		}
	case *ast.ArrayType:
		return "[]" + typeName(t.Elt)
	case *ast.MapType:
		return "map[" + typeName(t.Key) + "]" + typeName(t.Value)
	case *ast.IndexExpr:
		return typeName(t.X)
	}
	return fmt.Sprintf("%T", t)
}

// canonicalTypeName resolves the package qualifier of a type through the file's imports so
// aliases do not matter (e.g. "v1.ObjectMeta" imported as metav1 -> "v1.ObjectMeta").
func (in *Interp) canonicalTypeName(f *File, t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return in.canonicalTypeName(f, t.X)
	case *ast.ParenExpr:
		return in.canonicalTypeName(f, t.X)
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			if path, ok := f.imports[x.Name]; ok {
				return pkgShortName(in, path) + "." + t.Sel.Name
			}
		}
	}
	return typeName(t)
}

func pkgShortName(in *Interp, path string) string {
	if strings.HasPrefix(path, kaiModule+"/") {
		if p, err := in.kaiPkg(path); err == nil && p.name != "" {
			return p.name
		}
	}
	switch path {
	case "k8s.io/apimachinery/pkg/apis/meta/v1":
		return "metav1"
	case "k8s.io/api/core/v1":
		return "corev1"
	case "k8s.io/api/resource/v1":
		return "resourceapi"
	}
	return path[strings.LastIndex(path, "/")+1:]
}

func (in *Interp) zeroValue(c *ctx, t ast.Expr) Value {
	if t == nil {
		return nil
	}
	switch t := t.(type) {
	case *ast.Ident:
		switch in.typeKind(c.file, t) {
		case "int":
			return int64(0)
		case "float":
			return float64(0)
		case "string":
			return ""
		case "bool":
			return false
		}
		if td, ok := c.file.pkg.types[t.Name]; ok {
			if _, isStruct := td.spec.Type.(*ast.StructType); isStruct {
				return newStruct(t.Name, 0, c.file.path)
			}
		}
		return nil
	case *ast.SelectorExpr:
		return newStruct(in.canonicalTypeName(c.file, t), 0, c.file.path)
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// expressions

// evalHint evaluates e; hint is the type expected by the context (used for elided composite
// literal types inside slices and maps).
func (in *Interp) evalHint(c *ctx, e ast.Expr, hint ast.Expr) Value {
	switch x := e.(type) {
	case *ast.CompositeLit:
		if x.Type == nil {
			return in.evalComposite(c, x, hint)
		}
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			if cl, ok := x.X.(*ast.CompositeLit); ok && cl.Type == nil {
				return in.evalComposite(c, cl, hint)
			}
		}
	}
	v := in.eval(c, e)
	if id, ok := hint.(*ast.Ident); ok && isBuiltinType(id.Name) && v != nil {
		if _, isEnum := v.(*Enum); !isEnum {
			return convertBasic(id.Name, v)
		}
	}
	return v
}

func (in *Interp) eval(c *ctx, e ast.Expr) Value {
	switch x := e.(type) {
	case *ast.BasicLit:
		return evalBasicLit(x)
	case *ast.ParenExpr:
		return in.eval(c, x.X)
	case *ast.Ident:
		return in.evalIdent(c, x)
	case *ast.CompositeLit:
		return in.evalComposite(c, x, nil)
	case *ast.UnaryExpr:
		return in.evalUnary(c, x)
	case *ast.BinaryExpr:
		return in.evalBinary(c, x)
	case *ast.SelectorExpr:
		return in.evalSelector(c, x)
	case *ast.CallExpr:
		return in.evalCall(c, x)
	case *ast.IndexExpr:
		return in.evalIndex(c, x)
	case *ast.StarExpr:
		return in.eval(c, x.X)
	case *ast.FuncLit:
		return &Closure{decl: x.Type, body: x.Body, env: c.env, file: c.file, name: "func literal"}
	case *ast.KeyValueExpr:
		fail("unexpected key/value expression")
	case *ast.SliceExpr:
		v := in.eval(c, x.X)
		s, ok := v.(*Slice)
		if !ok {
			fail("slicing a non-slice")
		}
		lo, hi := int64(0), int64(len(s.Elems))
		if x.Low != nil {
			lo = toInt(in.eval(c, x.Low))
		}
		if x.High != nil {
			hi = toInt(in.eval(c, x.High))
		}
		return &Slice{Elems: append([]Value{}, s.Elems[lo:hi]...)}
	case *ast.TypeAssertExpr:
		fail("type assertion is not supported")
	}
	fail("unsupported expression %T", e)
	return nil
}

func evalBasicLit(x *ast.BasicLit) Value {
	switch x.Kind {
	case token.INT:
		v, err := strconv.ParseInt(x.Value, 0, 64)
		if err != nil {
			fail("bad int literal %s", x.Value)
		}
		return v
	case token.FLOAT:
		v, err := strconv.ParseFloat(x.Value, 64)
		if err != nil {
			fail("bad float literal %s", x.Value)
		}
		return v
	case token.STRING:
		s, err := strconv.Unquote(x.Value)
		if err != nil {
			fail("bad string literal")
		}
		return s
	case token.CHAR:
		s, _, _, err := strconv.UnquoteChar(x.Value[1:len(x.Value)-1], '\'')
		if err != nil {
			fail("bad char literal")
		}
		return int64(s)
	}
	fail("unsupported literal %s", x.Value)
	return nil
}

func (in *Interp) evalIdent(c *ctx, x *ast.Ident) Value {
	if c.env != nil {
		if p, ok := c.env.lookup(x.Name); ok {
			return *p
		}
	}
	switch x.Name {
	case "true":
		return true
	case "false":
		return false
	case "nil":
		return nil
	case "iota":
		if c.iota != nil {
			return *c.iota
		}
	}
	if v, ok := in.pkgIdent(c.file.pkg, x.Name); ok {
		return v
	}
	if b, ok := builtinFuncs[x.Name]; ok {
		return b
	}
	if isBuiltinType(x.Name) {
		return &TypeRef{Name: x.Name, Kind: in.typeKind(c.file, x)}
	}
	fail("unknown identifier %s", x.Name)
	return nil
}

func (in *Interp) evalSelector(c *ctx, x *ast.SelectorExpr) Value {
	if id, ok := x.X.(*ast.Ident); ok {
		shadowed := false
		if c.env != nil {
			_, shadowed = c.env.lookup(id.Name)
		}
		if path, ok := c.file.imports[id.Name]; ok && !shadowed {
			return in.pkgMember(path, x.Sel.Name)
		}
	}
	base := in.eval(c, x.X)
	switch b := base.(type) {
	case *Struct:
		if v, ok := getField(b, x.Sel.Name); ok {
			return v
		}
		// unset field: zero value (nil behaves as 0 / "" / false / empty)
		return nil
	case nil:
		fail("field %s of a nil value", x.Sel.Name)
	}
	fail("selector %s on %T", x.Sel.Name, base)
	return nil
}

// embedded describes which struct types embed which (for promoted fields).
var embedded = map[string][]string{
	"integration_tests_utils.TestTopologyMetadata": {"TestTopologyBasic"},
	"test_utils.TestTopologyBasic":                 {"TestDRAObjects"},
}

var embeddedTypes = map[string]string{
	"TestTopologyBasic": "test_utils.TestTopologyBasic",
	"TestDRAObjects":    "dra_fake.TestDRAObjects",
}

func getField(s *Struct, name string) (Value, bool) {
	if v, ok := s.Fields[name]; ok {
		return v, true
	}
	for _, emb := range embedded[s.Type] {
		if ev, ok := s.Fields[emb]; ok {
			if es, ok := ev.(*Struct); ok {
				if v, ok := getField(es, name); ok {
					return v, true
				}
			}
		}
	}
	return nil, false
}

var promotedOwner = map[string]string{}

func init() {
	for _, f := range []string{"Jobs", "Nodes", "Queues", "Departments", "DisableDefaultDepartment",
		"JobExpectedResults", "TaskExpectedResults", "ExpectedNodesResources", "Mocks", "Topologies"} {
		promotedOwner[f] = "TestTopologyBasic"
	}
	for _, f := range []string{"DeviceClasses", "ResourceSlices", "ResourceClaims"} {
		promotedOwner[f] = "TestDRAObjects"
	}
}

// floatFields lists the float64 fields of KAI's test types: integer literals stored there must
// behave as floats in later arithmetic (Go converts untyped constants on assignment).
var floatFields = map[string]bool{
	"jobs_fake.TestJobBasic.RequiredGPUsPerTask":          true,
	"jobs_fake.TestJobBasic.RequiredCPUsPerTask":          true,
	"jobs_fake.TestJobBasic.RequiredMemoryPerTask":        true,
	"test_utils.TestQueueBasic.DeservedGPUs":              true,
	"test_utils.TestQueueBasic.DeservedCPUs":              true,
	"test_utils.TestQueueBasic.DeservedMemory":            true,
	"test_utils.TestQueueBasic.MaxAllowedGPUs":            true,
	"test_utils.TestQueueBasic.MaxAllowedCPUs":            true,
	"test_utils.TestQueueBasic.MaxAllowedMemory":          true,
	"test_utils.TestQueueBasic.GPUOverQuotaWeight":        true,
	"test_utils.TestDepartmentBasic.DeservedGPUs":         true,
	"test_utils.TestDepartmentBasic.MaxAllowedGPUs":       true,
	"test_utils.TestDepartmentBasic.MaxAllowedCPUs":       true,
	"test_utils.TestDepartmentBasic.MaxAllowedMemory":     true,
	"nodes_fake.TestNodeBasic.CPUMemory":                  true,
	"nodes_fake.TestNodeBasic.CPUMillis":                  true,
	"test_utils.TestExpectedResultBasic.GPUsRequired":     true,
	"test_utils.TestExpectedResultBasic.GPUsAccepted":     true,
	"test_utils.TestExpectedResultBasic.MilliCpuRequired": true,
	"test_utils.TestExpectedResultBasic.MemoryRequired":   true,
	"test_utils.TestExpectedNodesResources.ReleasingGPUs": true,
	"test_utils.TestExpectedNodesResources.IdleGPUs":      true,
}

func coerceField(typ, field string, v Value) Value {
	if floatFields[typ+"."+field] {
		if i, ok := v.(int64); ok {
			return float64(i)
		}
	}
	return v
}

// setField assigns a (possibly promoted) field.
func setField(s *Struct, name string, v Value) {
	v = coerceField(s.Type, name, v)
	if _, ok := s.Fields[name]; ok {
		s.Set(name, v)
		return
	}
	for _, emb := range embedded[s.Type] {
		if owner := promotedOwner[name]; owner != "" {
			ev, ok := s.Fields[emb]
			es, isStruct := ev.(*Struct)
			if !ok || !isStruct {
				es = newStruct(embeddedTypes[emb], s.Line, s.File)
				s.Set(emb, es)
			}
			if emb == owner {
				es.Set(name, v)
			} else {
				setField(es, name, v)
			}
			return
		}
	}
	s.Set(name, v)
}

func (in *Interp) pkgMember(path, name string) Value {
	if strings.HasPrefix(path, kaiModule+"/") {
		key := strings.TrimPrefix(path, kaiModule+"/") + "." + name
		if v, ok := in.stubs[key]; ok {
			return v
		}
		p, err := in.kaiPkg(path)
		if err != nil {
			fail("cannot load package %s: %v", path, err)
		}
		if l, ok := p.consts[name]; ok {
			return in.evalLazy(p, l)
		}
		if l, ok := p.vars[name]; ok {
			return in.evalLazy(p, l)
		}
		if t, ok := p.types[name]; ok {
			return &TypeRef{Name: p.name + "." + name, Kind: in.typeKind(t.file, t.spec.Type)}
		}
		if _, ok := p.funcs[name]; ok {
			fail("call of KAI function %s.%s is not supported", p.name, name)
		}
		fail("unknown KAI identifier %s.%s", p.name, name)
	}
	if v, ok := in.stubs[path+"."+name]; ok {
		return v
	}
	fail("unsupported external identifier %s.%s", path, name)
	return nil
}

func (in *Interp) evalIndex(c *ctx, x *ast.IndexExpr) Value {
	base := in.eval(c, x.X)
	idx := in.eval(c, x.Index)
	switch b := base.(type) {
	case *Slice:
		i := toInt(idx)
		if i < 0 || int(i) >= len(b.Elems) {
			fail("index out of range")
		}
		return b.Elems[i]
	case *Map:
		v, _ := b.Get(idx)
		return v
	case nil:
		return nil
	case string:
		return int64(b[toInt(idx)])
	}
	// generic function instantiation, e.g. ptr.To[int64]
	if _, ok := base.(*Builtin); ok {
		return base
	}
	fail("indexing %T", base)
	return nil
}

func (in *Interp) evalUnary(c *ctx, x *ast.UnaryExpr) Value {
	if x.Op == token.AND {
		return in.eval(c, x.X) // pointers are transparent
	}
	v := in.eval(c, x.X)
	switch x.Op {
	case token.SUB:
		switch n := unwrap(v).(type) {
		case int64:
			return -n
		case float64:
			return -n
		}
		fail("negating %T", v)
	case token.ADD:
		return unwrap(v)
	case token.NOT:
		return !toBool(v)
	case token.XOR:
		return ^toInt(v)
	}
	fail("unsupported unary %s", x.Op)
	return nil
}

func (in *Interp) evalBinary(c *ctx, x *ast.BinaryExpr) Value {
	if x.Op == token.LAND {
		return toBool(in.eval(c, x.X)) && toBool(in.eval(c, x.Y))
	}
	if x.Op == token.LOR {
		return toBool(in.eval(c, x.X)) || toBool(in.eval(c, x.Y))
	}
	return binaryOp(x.Op, in.eval(c, x.X), in.eval(c, x.Y))
}

func binaryOp(op token.Token, a, b Value) Value {
	a, b = unwrap(a), unwrap(b)
	if a == nil && b != nil {
		a = zeroLike(b)
	}
	if b == nil && a != nil {
		b = zeroLike(a)
	}
	switch op {
	case token.EQL:
		return valuesEqual(a, b)
	case token.NEQ:
		return !valuesEqual(a, b)
	}
	if sa, ok := a.(string); ok {
		sb := toStr(b)
		switch op {
		case token.ADD:
			return sa + sb
		case token.LSS:
			return sa < sb
		case token.GTR:
			return sa > sb
		case token.LEQ:
			return sa <= sb
		case token.GEQ:
			return sa >= sb
		}
		fail("unsupported string operator %s", op)
	}
	ia, aInt := a.(int64)
	ib, bInt := b.(int64)
	if aInt && bInt {
		switch op {
		case token.ADD:
			return ia + ib
		case token.SUB:
			return ia - ib
		case token.MUL:
			return ia * ib
		case token.QUO:
			if ib == 0 {
				fail("division by zero")
			}
			return ia / ib
		case token.REM:
			if ib == 0 {
				fail("division by zero")
			}
			return ia % ib
		case token.SHL:
			return ia << uint(ib)
		case token.SHR:
			return ia >> uint(ib)
		case token.AND:
			return ia & ib
		case token.OR:
			return ia | ib
		case token.XOR:
			return ia ^ ib
		case token.AND_NOT:
			return ia &^ ib
		case token.LSS:
			return ia < ib
		case token.GTR:
			return ia > ib
		case token.LEQ:
			return ia <= ib
		case token.GEQ:
			return ia >= ib
		}
		fail("unsupported integer operator %s", op)
	}
	fa, fb := toFloat(a), toFloat(b)
	switch op {
	case token.ADD:
		return fa + fb
	case token.SUB:
		return fa - fb
	case token.MUL:
		return fa * fb
	case token.QUO:
		return fa / fb
	case token.LSS:
		return fa < fb
	case token.GTR:
		return fa > fb
	case token.LEQ:
		return fa <= fb
	case token.GEQ:
		return fa >= fb
	}
	fail("unsupported float operator %s", op)
	return nil
}

func zeroLike(v Value) Value {
	switch v.(type) {
	case int64:
		return int64(0)
	case float64:
		return float64(0)
	case string:
		return ""
	case bool:
		return false
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// composite literals

// caseElemTypes are the element types of test tables; the elements of slices of these types are
// evaluated one by one so that one unsupported case does not spoil the whole table.
func (in *Interp) isCaseType(f *File, t ast.Expr) bool {
	n := in.canonicalTypeName(f, t)
	switch n {
	case "integration_tests_utils.TestTopologyMetadata", "test_utils.TestTopologyBasic":
		return true
	}
	if id, ok := t.(*ast.Ident); ok {
		return localCaseTypes[f.path+"."+id.Name]
	}
	return false
}

// localCaseTypes: file.path + "." + local type name -> true for function-local struct types that
// wrap a TestTopologyBasic (see findLocalCaseTypes).
var localCaseTypes = map[string]bool{}

// CaseErr is stored in place of a table element that could not be evaluated.
type CaseErr struct {
	Msg  string
	Line int
}

func (in *Interp) evalComposite(c *ctx, x *ast.CompositeLit, hint ast.Expr) Value {
	t := x.Type
	if t == nil {
		t = hint
	}
	for {
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
			continue
		}
		if pe, ok := t.(*ast.ParenExpr); ok {
			t = pe.X
			continue
		}
		break
	}
	if t == nil {
		fail("composite literal without a type")
	}
	// resolve local named types whose underlying type is a slice or map
	if id, ok := t.(*ast.Ident); ok {
		if td, ok := c.file.pkg.types[id.Name]; ok {
			switch td.spec.Type.(type) {
			case *ast.ArrayType, *ast.MapType:
				t = td.spec.Type
			}
		} else if lt := localTypeSpec(c, id.Name); lt != nil {
			switch lt.Type.(type) {
			case *ast.ArrayType, *ast.MapType:
				t = lt.Type
			}
		}
	}
	switch tt := t.(type) {
	case *ast.ArrayType:
		s := &Slice{}
		caseElems := in.isCaseType(c.file, tt.Elt)
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				idx := toInt(in.eval(c, kv.Key))
				for int64(len(s.Elems)) <= idx {
					s.Elems = append(s.Elems, nil)
				}
				s.Elems[idx] = in.evalHint(c, kv.Value, tt.Elt)
				continue
			}
			if caseElems {
				s.Elems = append(s.Elems, in.evalCaseElem(c, el, tt.Elt))
			} else {
				s.Elems = append(s.Elems, in.evalHint(c, el, tt.Elt))
			}
		}
		return s
	case *ast.MapType:
		m := newMap()
		for _, el := range x.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				fail("map literal element without key")
			}
			k := in.evalHint(c, kv.Key, tt.Key)
			m.Set(k, in.evalHint(c, kv.Value, tt.Value))
		}
		return m
	case *ast.Ident, *ast.SelectorExpr:
		name := in.canonicalTypeName(c.file, tt)
		s := newStruct(name, in.line(x.Lbrace), c.file.path)
		for _, el := range x.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				fail("positional struct literal of %s is not supported", name)
			}
			key, ok := kv.Key.(*ast.Ident)
			if !ok {
				fail("bad struct key")
			}
			s.Set(key.Name, coerceField(name, key.Name, in.evalHint(c, kv.Value, nil)))
		}
		return s
	case *ast.StructType:
		s := newStruct("struct", in.line(x.Lbrace), c.file.path)
		for _, el := range x.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				fail("positional struct literal is not supported")
			}
			s.Set(kv.Key.(*ast.Ident).Name, in.evalHint(c, kv.Value, nil))
		}
		return s
	}
	fail("unsupported composite literal type %T", t)
	return nil
}

func (in *Interp) evalCaseElem(c *ctx, el ast.Expr, elemType ast.Expr) (res Value) {
	line := in.line(el.Pos())
	defer func() {
		if r := recover(); r != nil {
			if ee, ok := r.(*evalError); ok {
				res = &CaseErr{Msg: ee.msg, Line: line}
				return
			}
			panic(r)
		}
	}()
	return in.evalHint(c, el, elemType)
}

// localTypeSpec finds a type declared inside the function being evaluated (only those recorded
// by findLocalCaseTypes, which are plain structs).
func localTypeSpec(c *ctx, name string) *ast.TypeSpec {
	return localTypeSpecs[c.file.path+"."+name]
}

var localTypeSpecs = map[string]*ast.TypeSpec{}
