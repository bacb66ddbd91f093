package results

import "github.com/gatewaybench/gatewaybench/runner/vocab"

// ErrorCol is error class c's CSV column.
func ErrorCol(c vocab.ErrorClass) Col { return errorCols[c] }
