package main

import (
	"go/ast"
	"go/token"
)

// Closure is a Go function (package-level function or function literal) to interpret.
type Closure struct {
	decl *ast.FuncType
	body *ast.BlockStmt
	env  *Env
	file *File
	name string
}

type ctrl int

const (
	ctrlNone ctrl = iota
	ctrlReturn
	ctrlBreak
	ctrlContinue
)

const maxSteps = 2_000_000

type frame struct {
	ret   []Value
	steps int
}

func (in *Interp) evalCall(c *ctx, x *ast.CallExpr) Value {
	// method calls on values: x.M(args)
	if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
		isPkg := false
		if id, ok := sel.X.(*ast.Ident); ok {
			if _, imp := c.file.imports[id.Name]; imp {
				isPkg = true
				if c.env != nil {
					if _, shadow := c.env.lookup(id.Name); shadow {
						isPkg = false
					}
				}
			}
		}
		if !isPkg {
			recv := in.eval(c, sel.X)
			args := in.evalArgs(c, x)
			return callMethod(in, recv, sel.Sel.Name, args)
		}
	}
	fn := in.eval(c, x.Fun)
	switch f := fn.(type) {
	case *TypeRef:
		if len(x.Args) != 1 {
			fail("conversion to %s with %d arguments", f.Name, len(x.Args))
		}
		v := in.eval(c, x.Args[0])
		switch f.Kind {
		case "int":
			return toInt(v)
		case "float":
			return toFloat(v)
		case "string":
			return toStr(v)
		case "bool":
			return toBool(v)
		}
		return v
	case *Builtin:
		if f.Name == "make" {
			return builtinMake(in, c, x)
		}
		if f.Name == "new" {
			return in.zeroValue(c, x.Args[0])
		}
		return f.Fn(in, in.evalArgs(c, x))
	case *Closure:
		return in.callClosure(f, in.evalArgs(c, x), x.Ellipsis.IsValid())
	}
	fail("calling a non-function (%T)", fn)
	return nil
}

func (in *Interp) evalArgs(c *ctx, x *ast.CallExpr) []Value {
	out := make([]Value, 0, len(x.Args))
	for _, a := range x.Args {
		out = append(out, in.eval(c, a))
	}
	return out
}

func builtinMake(in *Interp, c *ctx, x *ast.CallExpr) Value {
	switch t := x.Args[0].(type) {
	case *ast.MapType:
		return newMap()
	case *ast.ArrayType:
		n := int64(0)
		if len(x.Args) > 1 {
			n = toInt(in.eval(c, x.Args[1]))
		}
		s := &Slice{}
		for i := int64(0); i < n; i++ {
			s.Elems = append(s.Elems, in.zeroValue(c, t.Elt))
		}
		return s
	}
	fail("unsupported make")
	return nil
}

func (in *Interp) callClosure(f *Closure, args []Value, ellipsis bool) Value {
	env := newEnv(f.env)
	params := []*ast.Field{}
	if f.decl.Params != nil {
		params = f.decl.Params.List
	}
	ai := 0
	for pi, p := range params {
		names := p.Names
		if len(names) == 0 {
			names = []*ast.Ident{{Name: "_"}}
		}
		for _, n := range names {
			if _, variadic := p.Type.(*ast.Ellipsis); variadic && pi == len(params)-1 {
				if ellipsis {
					env.define(n.Name, args[ai])
				} else {
					env.define(n.Name, &Slice{Elems: append([]Value{}, args[ai:]...)})
				}
				ai = len(args)
				continue
			}
			if ai >= len(args) {
				fail("too few arguments to %s", f.name)
			}
			v := args[ai]
			if id, ok := p.Type.(*ast.Ident); ok && isBuiltinType(id.Name) && v != nil {
				if _, isEnum := v.(*Enum); !isEnum {
					v = convertBasic(id.Name, v)
				}
			}
			env.define(n.Name, v)
			ai++
		}
	}
	fr := &frame{}
	c := &ctx{file: f.file, env: env}
	in.execBlock(c, f.body.List, fr)
	if len(fr.ret) == 0 {
		return nil
	}
	if len(fr.ret) > 1 {
		return &Slice{Elems: fr.ret} // multiple results; only used by tuple assignment
	}
	v := fr.ret[0]
	// convert to declared basic result type
	if f.decl.Results != nil && len(f.decl.Results.List) == 1 {
		if id, ok := f.decl.Results.List[0].Type.(*ast.Ident); ok && isBuiltinType(id.Name) && v != nil {
			if _, isEnum := v.(*Enum); !isEnum {
				v = convertBasic(id.Name, v)
			}
		}
	}
	return v
}

func (in *Interp) execBlock(c *ctx, stmts []ast.Stmt, fr *frame) ctrl {
	inner := &ctx{file: c.file, env: newEnv(c.env), iota: c.iota}
	for _, s := range stmts {
		if r := in.exec(inner, s, fr); r != ctrlNone {
			return r
		}
	}
	return ctrlNone
}

func (in *Interp) exec(c *ctx, s ast.Stmt, fr *frame) ctrl {
	fr.steps++
	if fr.steps > maxSteps {
		fail("step limit exceeded")
	}
	switch s := s.(type) {
	case *ast.ExprStmt:
		in.eval(c, s.X)
	case *ast.AssignStmt:
		in.execAssign(c, s)
	case *ast.IncDecStmt:
		v := in.eval(c, s.X)
		op := token.ADD
		if s.Tok == token.DEC {
			op = token.SUB
		}
		in.assign(c, s.X, binaryOp(op, v, int64(1)), false)
	case *ast.ReturnStmt:
		fr.ret = nil
		for _, r := range s.Results {
			fr.ret = append(fr.ret, in.eval(c, r))
		}
		return ctrlReturn
	case *ast.BlockStmt:
		return in.execBlock(c, s.List, fr)
	case *ast.IfStmt:
		inner := &ctx{file: c.file, env: newEnv(c.env)}
		if s.Init != nil {
			in.exec(inner, s.Init, fr)
		}
		if toBool(in.eval(inner, s.Cond)) {
			return in.execBlock(inner, s.Body.List, fr)
		} else if s.Else != nil {
			return in.exec(inner, s.Else, fr)
		}
	case *ast.ForStmt:
		inner := &ctx{file: c.file, env: newEnv(c.env)}
		if s.Init != nil {
			in.exec(inner, s.Init, fr)
		}
		for {
			if s.Cond != nil && !toBool(in.eval(inner, s.Cond)) {
				break
			}
			r := in.execBlock(inner, s.Body.List, fr)
			if r == ctrlReturn {
				return r
			}
			if r == ctrlBreak {
				break
			}
			if s.Post != nil {
				in.exec(inner, s.Post, fr)
			}
			fr.steps++
			if fr.steps > maxSteps {
				fail("step limit exceeded")
			}
		}
	case *ast.RangeStmt:
		return in.execRange(c, s, fr)
	case *ast.DeclStmt:
		gd, ok := s.Decl.(*ast.GenDecl)
		if !ok {
			fail("unsupported declaration")
		}
		switch gd.Tok {
		case token.VAR, token.CONST:
			var lastVals []ast.Expr
			var lastType ast.Expr
			for i, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				vals := vs.Values
				typ := vs.Type
				if gd.Tok == token.CONST {
					if len(vals) > 0 {
						lastVals, lastType = vals, typ
					} else {
						vals, typ = lastVals, lastType
					}
				}
				io := int64(i)
				ic := &ctx{file: c.file, env: c.env, iota: &io}
				for j, n := range vs.Names {
					var v Value
					if j < len(vals) {
						v = in.evalHint(ic, vals[j], typ)
					} else {
						v = in.zeroValue(c, typ)
					}
					c.env.define(n.Name, v)
				}
			}
		case token.TYPE:
			// local types are pre-registered by findLocalCaseTypes; nothing to do
		}
	case *ast.BranchStmt:
		switch s.Tok {
		case token.BREAK:
			return ctrlBreak
		case token.CONTINUE:
			return ctrlContinue
		}
		fail("unsupported branch %s", s.Tok)
	case *ast.DeferStmt, *ast.EmptyStmt:
	default:
		fail("unsupported statement %T", s)
	}
	return ctrlNone
}

func (in *Interp) execRange(c *ctx, s *ast.RangeStmt, fr *frame) ctrl {
	coll := in.eval(c, s.X)
	body := func(k, v Value) ctrl {
		inner := &ctx{file: c.file, env: newEnv(c.env)}
		if s.Key != nil {
			in.assign(inner, s.Key, k, s.Tok == token.DEFINE)
		}
		if s.Value != nil {
			in.assign(inner, s.Value, v, s.Tok == token.DEFINE)
		}
		r := in.execBlock(inner, s.Body.List, fr)
		if r == ctrlContinue {
			return ctrlNone
		}
		return r
	}
	var keys, vals []Value
	switch x := coll.(type) {
	case *Slice:
		for i, v := range x.Elems {
			keys = append(keys, int64(i))
			vals = append(vals, v)
		}
	case *Map:
		for _, k := range x.Keys {
			v, _ := x.Get(k)
			keys = append(keys, k)
			vals = append(vals, v)
		}
	case int64:
		for i := int64(0); i < x; i++ {
			keys = append(keys, i)
			vals = append(vals, nil)
		}
	case nil:
	default:
		fail("range over %T", coll)
	}
	for i := range keys {
		r := body(keys[i], vals[i])
		if r == ctrlReturn {
			return r
		}
		if r == ctrlBreak {
			break
		}
	}
	return ctrlNone
}

func (in *Interp) execAssign(c *ctx, s *ast.AssignStmt) {
	define := s.Tok == token.DEFINE
	if s.Tok != token.ASSIGN && s.Tok != token.DEFINE {
		var op token.Token
		switch s.Tok {
		case token.ADD_ASSIGN:
			op = token.ADD
		case token.SUB_ASSIGN:
			op = token.SUB
		case token.MUL_ASSIGN:
			op = token.MUL
		case token.QUO_ASSIGN:
			op = token.QUO
		case token.REM_ASSIGN:
			op = token.REM
		default:
			fail("unsupported assignment %s", s.Tok)
		}
		cur := in.eval(c, s.Lhs[0])
		in.assign(c, s.Lhs[0], binaryOp(op, cur, in.eval(c, s.Rhs[0])), false)
		return
	}
	if len(s.Lhs) == len(s.Rhs) {
		vals := make([]Value, len(s.Rhs))
		for i, r := range s.Rhs {
			vals[i] = in.eval(c, r)
		}
		for i, l := range s.Lhs {
			in.assign(c, l, vals[i], define)
		}
		return
	}
	if len(s.Rhs) == 1 {
		v := in.eval(c, s.Rhs[0])
		tuple, ok := v.(*Slice)
		if !ok || len(tuple.Elems) != len(s.Lhs) {
			fail("unsupported multi-value assignment")
		}
		for i, l := range s.Lhs {
			in.assign(c, l, tuple.Elems[i], define)
		}
		return
	}
	fail("unsupported assignment form")
}

func (in *Interp) assign(c *ctx, lhs ast.Expr, v Value, define bool) {
	switch l := lhs.(type) {
	case *ast.Ident:
		if l.Name == "_" {
			return
		}
		if define {
			if _, ok := c.env.vars[l.Name]; !ok {
				c.env.define(l.Name, v)
				return
			}
		}
		if p, ok := c.env.lookup(l.Name); ok {
			*p = v
			return
		}
		if define {
			c.env.define(l.Name, v)
			return
		}
		fail("assignment to unknown variable %s", l.Name)
	case *ast.IndexExpr:
		base := in.eval(c, l.X)
		idx := in.eval(c, l.Index)
		switch b := base.(type) {
		case *Map:
			b.Set(idx, v)
		case *Slice:
			i := toInt(idx)
			if i < 0 || int(i) >= len(b.Elems) {
				fail("index out of range in assignment")
			}
			b.Elems[i] = v
		default:
			fail("index assignment into %T", base)
		}
	case *ast.SelectorExpr:
		base := in.eval(c, l.X)
		s, ok := base.(*Struct)
		if !ok {
			fail("field assignment on %T", base)
		}
		setField(s, l.Sel.Name, v)
	case *ast.StarExpr:
		in.assign(c, l.X, v, define)
	case *ast.ParenExpr:
		in.assign(c, l.X, v, define)
	default:
		fail("unsupported assignment target %T", lhs)
	}
}
