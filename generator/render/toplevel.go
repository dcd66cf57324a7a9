package render

import (
	"fmt"
	"go/scanner"
	"go/token"
)

// topLevelName is an identifier a Go file declares at package level (a
// method as Type.Method), and the line it is declared on.
type topLevelName struct {
	name string
	line int
}

// goTopLevel is what checkDeclarations needs of a Go file: its package
// clause and its package-level names.
type goTopLevel struct {
	pkg   string
	names []topLevelName
}

// readTopLevel reads src's package name and package-level declarations
// from its tokens, without building a syntax tree: go/parser's full parse
// of every rendered Go file, function bodies and all, was the largest step
// of gsgen new after writing, for a handful of names per file. The tokens
// are go/scanner's, so strings, comments and automatic semicolons are Go's
// own; at package level a declaration runs to the first semicolon outside
// brackets, which the scanner inserts at the end of its last line.
// TestReadTopLevelIsTheParsers holds it to topLevelNames of go/parser's
// tree for every Go file of the accepted space. A file the scanner refuses
// is reported as a template bug, as a parse error was.
func readTopLevel(path string, src []byte) (goTopLevel, error) {
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	var errs scanner.ErrorList
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	r := topLevelReader{s: &s, file: file}
	r.next()
	out := goTopLevel{}
	if r.tok != token.PACKAGE {
		return out, fmt.Errorf("%s: no package clause", path)
	}
	r.next()
	out.pkg = r.lit
	r.skipDecl()
	for r.tok != token.EOF {
		switch r.tok {
		case token.FUNC:
			r.next()
			recv := ""
			if r.tok == token.LPAREN {
				recv = r.receiver()
			}
			if r.tok == token.IDENT {
				if recv != "" {
					out.add(recv+"."+r.lit, r.line())
				} else {
					out.add(r.lit, r.line())
				}
			}
		case token.TYPE:
			r.next()
			r.specs(func() { // a type's name, then what it is
				if r.tok == token.IDENT {
					out.add(r.lit, r.line())
				}
			})
		case token.VAR, token.CONST:
			r.next()
			r.specs(func() { // a list of names, then a type or values
				for r.tok == token.IDENT {
					out.add(r.lit, r.line())
					if r.next(); r.tok != token.COMMA {
						return
					}
					r.next()
				}
			})
		}
		r.skipDecl()
	}
	if errs.Len() > 0 {
		errs.Sort()
		return out, errs.Err()
	}
	return out, nil
}

// add records a name, unless Go lets a package declare it more than once.
func (t *goTopLevel) add(name string, line int) {
	if name != "_" && name != "init" {
		t.names = append(t.names, topLevelName{name, line})
	}
}

// topLevelReader walks a file's tokens, keeping the one in hand.
type topLevelReader struct {
	s    *scanner.Scanner
	file *token.File
	pos  token.Pos
	tok  token.Token
	lit  string
}

func (r *topLevelReader) next() { r.pos, r.tok, r.lit = r.s.Scan() }

func (r *topLevelReader) line() int { return r.file.Line(r.pos) }

// skipDecl moves past the end of the declaration in hand: the first
// semicolon outside brackets.
func (r *topLevelReader) skipDecl() {
	for depth := 0; r.tok != token.EOF; r.next() {
		switch r.tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		case token.SEMICOLON:
			if depth == 0 {
				r.next()
				return
			}
		}
	}
}

// specs reads the specs of a type, var or const declaration, one or a
// parenthesised group, calling name at the start of each; it stops at the
// declaration's end, for skipDecl.
func (r *topLevelReader) specs(name func()) {
	if r.tok != token.LPAREN {
		name()
		return
	}
	r.next()
	for r.tok != token.RPAREN && r.tok != token.EOF {
		name()
		// to the end of this spec: a semicolon, or the group's closing
		// parenthesis, outside brackets of its own
		for depth := 0; r.tok != token.EOF; r.next() {
			if depth == 0 && (r.tok == token.SEMICOLON || r.tok == token.RPAREN) {
				break
			}
			switch r.tok {
			case token.LPAREN, token.LBRACE, token.LBRACK:
				depth++
			case token.RPAREN, token.RBRACE, token.RBRACK:
				depth--
			}
		}
		if r.tok == token.SEMICOLON {
			r.next()
		}
	}
	r.next() // the group's closing parenthesis
}

// receiver reads a method's receiver, from its opening parenthesis to past
// its closing one, and returns the type it names, as receiverName does: T
// for (T), (t T), (t *T) and (t T[K]). That is the last name before a type
// parameter's bracket or the closing parenthesis.
func (r *topLevelReader) receiver() string {
	typ := ""
	inParams := false
	for depth := 0; r.tok != token.EOF; r.next() {
		switch r.tok {
		case token.LPAREN:
			depth++
		case token.RPAREN:
			if depth--; depth == 0 {
				r.next()
				return typ
			}
		case token.LBRACK:
			inParams = true
		case token.IDENT:
			if !inParams {
				typ = r.lit
			}
		}
	}
	return typ
}
