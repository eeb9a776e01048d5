package starlark

import (
	"fmt"
	"strings"

	"go.starlark.net/syntax"
)

// guardSyntax rewrites a parsed file or expression so that the operations
// the memory budget checks before they run go through its builtins (see
// memory.go): x * y becomes _cudapkgs_mul(x, y) (likewise + and %), x += y
// for a name x becomes x += _cudapkgs_augadd(x, y), and s.replace(...),
// s.join(...) and s.format(...) become _cudapkgs_recv(s).replace(...).
// Positions are kept, so errors point where they did. A name with the
// guards' prefix in the source is an error: it could shadow them.
type guardSyntax struct{ err error }

func (g *guardSyntax) ident(id *syntax.Ident) {
	if g.err == nil && strings.HasPrefix(id.Name, guardPrefix) {
		g.err = syntax.Error{Pos: id.NamePos, Msg: fmt.Sprintf("%s: names starting with %s are reserved", id.Name, guardPrefix)}
	}
}

func guardCall(name string, pos syntax.Position, args ...syntax.Expr) *syntax.CallExpr {
	return &syntax.CallExpr{Fn: &syntax.Ident{NamePos: pos, Name: guardPrefix + name}, Lparen: pos, Args: args, Rparen: pos}
}

func (g *guardSyntax) stmts(list []syntax.Stmt) {
	for _, s := range list {
		g.stmt(s)
	}
}

func (g *guardSyntax) stmt(s syntax.Stmt) {
	switch s := s.(type) {
	case *syntax.AssignStmt:
		s.LHS = g.expr(s.LHS)
		s.RHS = g.expr(s.RHS)
		if id, ok := s.LHS.(*syntax.Ident); ok {
			switch s.Op {
			case syntax.PLUS_EQ:
				s.RHS = guardCall("augadd", s.OpPos, &syntax.Ident{NamePos: id.NamePos, Name: id.Name}, s.RHS)
			case syntax.STAR_EQ:
				s.RHS = guardCall("augmul", s.OpPos, &syntax.Ident{NamePos: id.NamePos, Name: id.Name}, s.RHS)
			}
		}
	case *syntax.DefStmt:
		g.ident(s.Name)
		g.params(s.Params)
		g.stmts(s.Body)
	case *syntax.ExprStmt:
		s.X = g.expr(s.X)
	case *syntax.ForStmt:
		s.Vars = g.expr(s.Vars)
		s.X = g.expr(s.X)
		g.stmts(s.Body)
	case *syntax.WhileStmt:
		s.Cond = g.expr(s.Cond)
		g.stmts(s.Body)
	case *syntax.IfStmt:
		s.Cond = g.expr(s.Cond)
		g.stmts(s.True)
		g.stmts(s.False)
	case *syntax.LoadStmt:
		for _, id := range s.To {
			g.ident(id)
		}
	case *syntax.ReturnStmt:
		if s.Result != nil {
			s.Result = g.expr(s.Result)
		}
	}
}

func (g *guardSyntax) params(ps []syntax.Expr) {
	for i, p := range ps {
		switch p := p.(type) {
		case *syntax.BinaryExpr: // name = default
			if id, ok := p.X.(*syntax.Ident); ok {
				g.ident(id)
			}
			p.Y = g.expr(p.Y)
		default:
			ps[i] = g.expr(p)
		}
	}
}

func (g *guardSyntax) exprs(list []syntax.Expr) {
	for i, e := range list {
		list[i] = g.expr(e)
	}
}

func (g *guardSyntax) expr(e syntax.Expr) syntax.Expr {
	switch e := e.(type) {
	case nil:
		return nil
	case *syntax.Ident:
		g.ident(e)
	case *syntax.BinaryExpr:
		bounded := boundedByLiteral(e)
		e.X = g.expr(e.X)
		e.Y = g.expr(e.Y)
		if name, ok := opNames[e.Op]; ok && !bounded {
			return guardCall(name, e.OpPos, e.X, e.Y)
		}
	case *syntax.CallExpr:
		e.Fn = g.expr(e.Fn)
		for i, a := range e.Args {
			if kw, ok := a.(*syntax.BinaryExpr); ok && kw.Op == syntax.EQ {
				kw.Y = g.expr(kw.Y) // name = value: the name is not an expression
				continue
			}
			e.Args[i] = g.expr(a)
		}
		if dot, ok := e.Fn.(*syntax.DotExpr); ok && guardedMethods[dot.Name.Name] {
			dot.X = guardCall("recv", dot.Dot, dot.X)
		}
	case *syntax.Comprehension:
		e.Body = g.expr(e.Body)
		for _, c := range e.Clauses {
			switch c := c.(type) {
			case *syntax.ForClause:
				c.Vars = g.expr(c.Vars)
				c.X = g.expr(c.X)
			case *syntax.IfClause:
				c.Cond = g.expr(c.Cond)
			}
		}
	case *syntax.CondExpr:
		e.Cond = g.expr(e.Cond)
		e.True = g.expr(e.True)
		e.False = g.expr(e.False)
	case *syntax.DictEntry:
		e.Key = g.expr(e.Key)
		e.Value = g.expr(e.Value)
	case *syntax.DictExpr:
		g.exprs(e.List)
	case *syntax.DotExpr:
		e.X = g.expr(e.X)
	case *syntax.IndexExpr:
		e.X = g.expr(e.X)
		e.Y = g.expr(e.Y)
	case *syntax.LambdaExpr:
		g.params(e.Params)
		e.Body = g.expr(e.Body)
	case *syntax.ListExpr:
		g.exprs(e.List)
	case *syntax.ParenExpr:
		e.X = g.expr(e.X)
	case *syntax.SliceExpr:
		e.X = g.expr(e.X)
		e.Lo = g.expr(e.Lo)
		e.Hi = g.expr(e.Hi)
		e.Step = g.expr(e.Step)
	case *syntax.TupleExpr:
		g.exprs(e.List)
	case *syntax.UnaryExpr:
		e.X = g.expr(e.X)
	}
	return e
}

// boundedByLiteral says whether a literal operand bounds the work and the
// result of e, so that it needs no guard (a builtin call costs several
// steps, and most comparisons and index arithmetic have a literal side):
//
//   - a comparison with a literal: Go compares strings' lengths first, and
//     values of different types at once, so it costs at most the literal;
//   - x in a literal string, list or tuple of literals: each comparison
//     costs at most its literal;
//   - x + n, x - n, x // n, x & n, x | n, x ^ n for an integer literal n:
//     x can only be an integer (anything else is an error), and integers
//     are capped at maxIntBits where they grow (memory.go).
func boundedByLiteral(e *syntax.BinaryExpr) bool {
	switch e.Op {
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.GT, syntax.LE, syntax.GE:
		return isLiteral(e.X) || isLiteral(e.Y)
	case syntax.IN, syntax.NOT_IN:
		switch y := e.Y.(type) {
		case *syntax.ListExpr:
			return allLiterals(y.List)
		case *syntax.TupleExpr:
			return allLiterals(y.List)
		case *syntax.ParenExpr:
			if t, ok := y.X.(*syntax.TupleExpr); ok {
				return allLiterals(t.List)
			}
		}
		return isLiteral(e.Y)
	case syntax.PLUS, syntax.MINUS, syntax.SLASHSLASH, syntax.AMP, syntax.PIPE, syntax.CIRCUMFLEX:
		return isIntLiteral(e.X) || isIntLiteral(e.Y)
	}
	return false
}

func isLiteral(e syntax.Expr) bool {
	_, ok := e.(*syntax.Literal)
	return ok
}

func isIntLiteral(e syntax.Expr) bool {
	l, ok := e.(*syntax.Literal)
	return ok && l.Token == syntax.INT
}

func allLiterals(list []syntax.Expr) bool {
	for _, e := range list {
		if !isLiteral(e) {
			return false
		}
	}
	return true
}

// checkDigits refuses source with a run of more than maxIntDigits decimal
// digits before it is parsed: the parser converts an integer literal to
// binary as it reads it, in time quadratic in its length (a 4 MiB file of
// one literal took 38 s and 33 GB of allocations), outside any budget. A
// run inside a string or a comment is refused too: no configuration has
// one.
func checkDigits(name string, src []byte) error {
	line, col, run := int32(1), int32(1), 0
	for _, c := range src {
		if c >= '0' && c <= '9' {
			run++
			if run > maxIntDigits {
				return syntax.Error{Pos: syntax.MakePosition(&name, line, col-int32(run)+1), Msg: fmt.Sprintf("a run of more than %d decimal digits: integers are limited to %d bits", maxIntDigits, maxIntBits)}
			}
		} else {
			run = 0
		}
		col++
		if c == '\n' {
			line, col = line+1, 1
		}
	}
	return nil
}
