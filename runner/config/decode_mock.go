// Decoding the mock block: its ports and its knobs, decoded from the mock's own table.

package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/agext/levenshtein"
	"github.com/gatewaybench/gatewaybench/mock/script"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// rawKnobs is a mock block: its port, and knobs decoded from the mock's
// own table (script.Table), which also defines its flags and headers.
type rawKnobs struct {
	Port *int `hcl:"port,optional"`
	// FallbackPort: where a second mock answers in failover scenarios.
	FallbackPort *int      `hcl:"fallback_port,optional"`
	Knobs        hcl.Body  `hcl:",remain"`
	Body         hcl.Body  `hcl:",body"`
	DeclRange    hcl.Range `hcl:",def_range"`
}

func (c *checker) mock(r *rawKnobs) Mock {
	m := Mock{Port: 18080, FallbackPort: 18079, Knobs: script.DefaultKnobs()}
	if r == nil {
		return m
	}
	m.Range = r.DeclRange
	for _, p := range []struct {
		name string
		v    *int
		dst  *int
	}{{"port", r.Port, &m.Port}, {"fallback_port", r.FallbackPort, &m.FallbackPort}} {
		if p.v == nil {
			continue
		}
		if *p.v < 1 || *p.v > 65535 {
			c.errorf(attrRange(r.Body, p.name), "Invalid port", "%s must be 1..65535; got %d.", p.name, *p.v)
		} else {
			*p.dst = *p.v
		}
	}
	if m.FallbackPort == m.Port {
		c.errorf(attrRange(r.Body, "fallback_port"), "Port already in use", "fallback_port must differ from the mock's port (%d).", m.Port)
	}
	c.knobs(r, &m.Knobs)
	return m
}

// knobs applies the attributes of r onto k, each parsed and bounded by its
// entry in script.Table.
func (c *checker) knobs(r *rawKnobs, k *script.Knobs) {
	attrs, diags := r.Knobs.JustAttributes()
	c.diags = append(c.diags, diags...)
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		attr := attrs[name]
		kn := script.LookupHCL(name)
		if kn == nil {
			c.errorf(attr.NameRange, "Unsupported argument", "An argument named %q is not expected here.%s", name, didYouMean(name))
			continue
		}
		v, diags := attr.Expr.Value(nil)
		c.diags = append(c.diags, diags...)
		if diags.HasErrors() {
			continue
		}
		text, ok := knobText(v)
		if !ok {
			c.errorf(attr.Expr.Range(), "Unsuitable value type", "%s takes a number or a string; got %s.", name, v.Type().FriendlyName())
			continue
		}
		if kn.Type == script.SecretKnob && !c.requestSafe(r.Body, name, "the mock's "+name, text) {
			continue
		}
		if err := kn.Set(k, text); err != nil {
			summary := sumValue
			switch {
			case errors.As(err, new(*script.RangeError)):
				summary = sumOutOfRange
			case kn.Type == script.DurationKnob:
				summary = sumDuration
			}
			c.errorf(attr.Expr.Range(), summary, "%s.", err)
		}
	}
}

// didYouMean suggests the knob (or port) nearest to a misspelt name, as
// HCL does for the attributes it decodes itself.
func didYouMean(name string) string {
	names := []string{"port"}
	for _, kn := range script.Table {
		names = append(names, kn.HCL)
	}
	for _, n := range names {
		if levenshtein.Distance(name, n, nil) < 3 {
			return fmt.Sprintf(" Did you mean %q?", n)
		}
	}
	return ""
}

// knobText is an HCL value as the knob table reads it: strings as they
// are, numbers in full (1e9 is "1000000000", which an int knob refuses).
func knobText(v cty.Value) (string, bool) {
	if v.IsNull() || !v.IsKnown() {
		return "", false
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), true
	case cty.Number:
		return v.AsBigFloat().Text('f', -1), true
	}
	return "", false
}
