package results

import "github.com/gatewaybench/gatewaybench/runner/vocab"

// The words rows are made of live in runner/vocab; these read them back
// from a record.

// Kind is the row's scenario kind.
func (r Record) Kind() vocab.Kind { return vocab.Kind(r.Str(ColKind)) }

// Mode is the row's load mode.
func (r Record) Mode() vocab.Mode { return vocab.Mode(r.Str(ColMode)) }

// Class is the row's arm class ("" in CSVs older than the column, but
// for direct).
func (r Record) Class() vocab.Class {
	if c := vocab.Class(r.Str(ColGatewayClass)); c != "" {
		return c
	}
	if r.Str(ColGateway) == vocab.Direct {
		return vocab.ClassDirect
	}
	return ""
}

// Point is the row's load point key: its point column, or in a CSV older
// than that column the key of its mode, concurrency, rate, share and
// prompt columns (the same text); "" for a row of no point (an arm that
// never came up).
func (r Record) Point() vocab.PointKey {
	if k := r.Str(ColPoint); k != "" {
		return vocab.PointKey(k)
	}
	if r.Mode() == "" || r.Str(ColTrial) == "0" {
		return ""
	}
	return vocab.KeyOf(r.Mode(), r.Int(ColConcurrency), r.Num(ColRateRPS).V, r.Num(ColCapacityShare).V, r.Int(ColPromptTokens))
}
