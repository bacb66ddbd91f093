// Decoding published blocks: a seed benchmark's own table, set beside the
// scenario that applies its method on this rig (issue 64).

package config

import (
	"math"
	"net/url"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"

	"github.com/gatewaybench/gatewaybench/runner/results"
	"github.com/gatewaybench/gatewaybench/runner/vocab"
)

type rawPublished struct {
	Name      string         `hcl:"name,label"`
	Source    string         `hcl:"source"`
	Method    string         `hcl:"method"`
	Host      string         `hcl:"host"`
	Scenario  string         `hcl:"scenario"`
	Figures   []rawPubFigure `hcl:"figure,block"`
	Body      hcl.Body       `hcl:",body"`
	DeclRange hcl.Range      `hcl:",def_range"`
}

type rawPubFigure struct {
	Arm       string    `hcl:"arm,label"`
	RPS       float64   `hcl:"rps"`
	P50MS     *float64  `hcl:"p50_ms,optional"`
	P99MS     *float64  `hcl:"p99_ms,optional"`
	Body      hcl.Body  `hcl:",body"`
	DeclRange hcl.Range `hcl:",def_range"`
}

// maxPublishedText bounds a published block's prose: a sentence or two,
// printed in a table cell.
const maxPublishedText = 300

// Bounds on a published figure: what a benchmark of one machine prints.
const (
	maxPublishedRPS = 1e9
	maxPublishedMS  = 1e6
)

// published decodes the published blocks, after the scenarios: each names
// a closed-loop throughput scenario of one load point, and each figure an
// arm that takes part in it (a gateway, or direct for their baseline with
// no gateway), so every figure of theirs has a row of ours beside it.
func (c *checker) published(raws []rawPublished, cfg *Config) []results.Published {
	var out []results.Published
	seen := map[string]hcl.Range{}
	for _, r := range raws {
		if !nameRE.MatchString(r.Name) {
			c.errorf(r.DeclRange, "Invalid published name", "%q names a table in the report: use lower-case letters, digits, '-' and '_'.", r.Name)
		}
		if prev, dup := seen[r.Name]; dup {
			c.errorf(r.DeclRange, "Duplicate published block", "published %q is already declared at %s.", r.Name, prev)
		}
		seen[r.Name] = r.DeclRange
		if u, err := url.Parse(r.Source); err != nil || u.Scheme != "https" || u.Host == "" {
			c.errorf(attrRange(r.Body, "source"), "Invalid source", "source = %q must be the https address of the page that printed the table, at a fixed commit where it has one.", r.Source)
		}
		for _, t := range []struct{ attr, v string }{{"source", r.Source}, {"method", r.Method}, {"host", r.Host}} {
			c.publishedText(r.Body, t.attr, t.v)
		}
		p := results.Published{Name: r.Name, Source: r.Source, Method: r.Method, Host: r.Host, Scenario: r.Scenario}
		sc := cfg.Scenario(r.Scenario)
		switch {
		case sc == nil:
			c.errorf(attrRange(r.Body, "scenario"), "Unknown scenario", "published %q names scenario %q, which no scenario block declares; name the scenario that applies their method here.", r.Name, r.Scenario)
		case vocab.Kind(sc.Kind) != vocab.KindThroughput || len(sc.Concurrency) != 1 || len(sc.Rates)+len(sc.CapacityShares) > 0 || len(sc.PromptTokens) > 1:
			c.errorf(attrRange(r.Body, "scenario"), "Not a published method's scenario",
				"scenario %q must be of kind \"throughput\" with one closed-loop load point (one concurrency, one prompt size, no rates or capacity shares): a published table is one load, as their tool ran it.", r.Scenario)
			sc = nil
		}
		if len(r.Figures) == 0 {
			c.errorf(r.DeclRange, "No figures", "published %q holds no figure blocks; add one per row of their table, like figure \"portkey\" { rps = 5800 p99_ms = 9 }.", r.Name)
		}
		arms := map[string]bool{}
		for _, f := range r.Figures {
			if arms[f.Arm] {
				c.errorf(f.DeclRange, "Duplicate figure", "published %q has two figures for %q.", r.Name, f.Arm)
				continue
			}
			arms[f.Arm] = true
			if sc != nil {
				c.publishedArm(f, sc, cfg)
			}
			c.publishedNumber(f.Body, "rps", &f.RPS, maxPublishedRPS, true)
			c.publishedNumber(f.Body, "p50_ms", f.P50MS, maxPublishedMS, false)
			c.publishedNumber(f.Body, "p99_ms", f.P99MS, maxPublishedMS, false)
			p.Figures = append(p.Figures, results.PublishedFigure{Arm: f.Arm, RPS: f.RPS, P50MS: f.P50MS, P99MS: f.P99MS})
		}
		out = append(out, p)
	}
	return out
}

// publishedArm checks that a figure's arm takes part in the scenario.
func (c *checker) publishedArm(f rawPubFigure, sc *Scenario, cfg *Config) {
	if f.Arm == vocab.Direct {
		return
	}
	g := cfg.Gateway(f.Arm)
	if g == nil {
		c.errorf(f.DeclRange, "Unknown arm", "figure %q names no gateway block (or direct, the mock with no gateway); each figure sits beside our row of that arm.", f.Arm)
		return
	}
	if why := cfg.Skips(g, sc); why != "" {
		c.errorf(f.DeclRange, "Arm not in the scenario", "figure %q: gateway %q takes no part in scenario %q (%s), so no row of ours would sit beside it.", f.Arm, f.Arm, sc.Name, why)
	}
}

// publishedNumber refuses a figure no benchmark prints: below zero (or at
// zero, for a rate), or past its bound.
func (c *checker) publishedNumber(body hcl.Body, attr string, v *float64, limit float64, positive bool) {
	if v == nil {
		return
	}
	if math.IsNaN(*v) || *v < 0 || (positive && *v == 0) || *v > limit {
		c.errorf(attrRange(body, attr), sumOutOfRange, "%s = %g: a published figure, above zero and at most %g.", attr, *v, limit)
	}
}

// publishedText refuses prose that would break the report's table: a
// line break, a control character, a '|', or more than a few sentences.
func (c *checker) publishedText(body hcl.Body, attr, v string) {
	switch {
	case strings.TrimSpace(v) == "":
		c.errorf(attrRange(body, attr), "Empty text", "%s is printed in the report beside their figures; say it.", attr)
	case len(v) > maxPublishedText:
		c.errorf(attrRange(body, attr), sumOutOfRange, "%s has %d bytes; at most %d fit the report's table.", attr, len(v), maxPublishedText)
	case strings.ContainsRune(v, '|') || strings.ContainsFunc(v, unicode.IsControl):
		c.errorf(attrRange(body, attr), "Invalid text", "%s = %q holds a '|' or a control character, which would break the report's table; remove it.", attr, v)
	}
}
