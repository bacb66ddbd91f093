package config

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Bounds on a file's shape, checked on its bytes before HCL parses them:
// the parser recurses per level of nesting (60,000 levels overflowed its
// stack, a fatal crash rather than a diagnostic) and some checks are
// quadratic in a list's length. No benchmark comes near either bound.
const (
	maxDepth   = 32   // nested blocks, objects, lists and parentheses
	maxListLen = 1000 // elements of one list
)

// checkShape scans src for nesting deeper than maxDepth and lists longer
// than maxListLen, skipping comments, quoted strings and heredocs. It
// returns at the first problem.
func checkShape(filename string, src []byte) hcl.Diagnostics {
	type open struct {
		kind  byte
		elems int
		at    hcl.Pos
	}
	var stack []open
	sc := &scanner{src: src, pos: hcl.Pos{Line: 1, Column: 1}}
	diag := func(at hcl.Pos, summary, detail string) hcl.Diagnostics {
		r := hcl.Range{Filename: filename, Start: at, End: hcl.Pos{Line: at.Line, Column: at.Column + 1, Byte: at.Byte + 1}}
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &r}}
	}
	for sc.pos.Byte < len(src) {
		if sc.skipText() || sc.pos.Byte == len(src) { // a string left open at the end
			continue
		}
		switch c := src[sc.pos.Byte]; {
		case c == '{' || c == '[' || c == '(':
			if len(stack) == maxDepth {
				return diag(sc.pos, sumNesting,
					fmt.Sprintf("blocks, objects and lists nest at most %d deep in a benchmark file; this one goes deeper here.", maxDepth))
			}
			stack = append(stack, open{kind: c, at: sc.pos})
		case c == '}' || c == ']' || c == ')':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case c == ',' && len(stack) > 0 && stack[len(stack)-1].kind == '[':
			top := &stack[len(stack)-1]
			if top.elems++; top.elems >= maxListLen {
				return diag(top.at, "List too long",
					fmt.Sprintf("a list holds at most %d elements in a benchmark file; this one has more.", maxListLen))
			}
		}
		sc.advance(1)
	}
	return nil
}

// scanner walks an HCL source byte by byte, keeping its position.
type scanner struct {
	src []byte
	pos hcl.Pos
}

func (s *scanner) advance(n int) {
	for _, c := range s.src[s.pos.Byte : s.pos.Byte+n] {
		if c == '\n' {
			s.pos.Line, s.pos.Column = s.pos.Line+1, 1
		} else if c&0xC0 != 0x80 { // count characters, not UTF-8 continuation bytes
			s.pos.Column++
		}
	}
	s.pos.Byte += n
}

func (s *scanner) skipTo(end []byte) {
	i := bytes.Index(s.src[s.pos.Byte:], end)
	if i < 0 {
		i = len(s.src) - s.pos.Byte
	} else {
		i += len(end)
	}
	s.advance(i)
}

// skipText skips a comment or a heredoc and says so; at a quoted string it
// skips to its closing quote (which the caller then passes) and says not.
func (s *scanner) skipText() bool {
	c, rest := s.src[s.pos.Byte], s.src[s.pos.Byte:]
	switch {
	case c == '#' || bytes.HasPrefix(rest, []byte("//")):
		s.skipTo([]byte("\n"))
		return true
	case bytes.HasPrefix(rest, []byte("/*")):
		s.skipTo([]byte("*/"))
		return true
	case c == '"':
		s.advance(1)
		for s.pos.Byte < len(s.src) && s.src[s.pos.Byte] != '"' && s.src[s.pos.Byte] != '\n' {
			if s.src[s.pos.Byte] == '\\' && s.pos.Byte+1 < len(s.src) {
				s.advance(1)
			}
			s.advance(1)
		}
		return false
	case bytes.HasPrefix(rest, []byte("<<")):
		line, _, _ := bytes.Cut(rest[2:], []byte("\n"))
		marker := bytes.TrimSpace(bytes.TrimPrefix(line, []byte("-")))
		s.skipTo([]byte("\n"))
		for s.pos.Byte < len(s.src) {
			line, _, _ := bytes.Cut(s.src[s.pos.Byte:], []byte("\n"))
			s.skipTo([]byte("\n"))
			if len(marker) > 0 && bytes.Equal(bytes.TrimSpace(line), marker) {
				break
			}
		}
		return true
	}
	return false
}

// refuseLoops refuses for expressions and template for directives
// anywhere in the file: nested ones multiply (three over 1,000-element
// lists are 10^9 steps in a file of a few KB, which the shape bounds do
// not see), and no benchmark needs one; every value is written out.
func refuseLoops(body *hclsyntax.Body) hcl.Diagnostics {
	diags := hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		var what string
		switch n.(type) {
		case *hclsyntax.ForExpr:
			what = "a for expression"
		case *hclsyntax.TemplateJoinExpr:
			what = "a template for directive (%{ for ... })"
		default:
			return nil
		}
		r := n.Range()
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Loops not supported",
			Detail:  fmt.Sprintf("This file holds %s. gatewaybench files write every value out: a loop, nested, can keep the parser busy for hours. List the values instead.", what),
			Subject: &r}}
	})
	return diags[:min(len(diags), 1)] // the first says it; the others add nothing
}
