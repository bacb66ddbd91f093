package server

import (
	"strconv"

	"github.com/gatewaybench/gatewaybench/mock/script"
)

// appendString appends s as a JSON string (script.AppendJSONString).
func appendString(dst, s []byte) []byte { return script.AppendJSONString(dst, s) }

func appendInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }
