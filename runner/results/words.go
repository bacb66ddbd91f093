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
