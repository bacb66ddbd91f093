package script

import (
	"testing"

	"github.com/gatewaybench/gatewaybench/internal/golden"
)

// TestReadmeKnobTable: the README's table of knobs is Markdown() verbatim,
// between its markers; UPDATE_GOLDEN=1 rewrites it.
func TestReadmeKnobTable(t *testing.T) {
	golden.Section(t, "../../README.md", "<!-- knobs:begin -->", "<!-- knobs:end -->", Markdown())
}
