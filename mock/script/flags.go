package script

import (
	"flag"
)

// RegisterFlags defines the mock's knob flags on fs (from Table), defaulting to k.
func (k *Knobs) RegisterFlags(fs *flag.FlagSet) {
	for i := range Table {
		kn := &Table[i]
		doc := kn.Doc
		if kn.Type == SecretKnob {
			doc += "; on the command line it is visible to ps, prefer the environment"
		}
		fs.Var(knobFlag{kn, k}, kn.Flag, doc)
	}
}

type knobFlag struct {
	kn *Knob
	k  *Knobs
}

func (f knobFlag) String() string {
	if f.kn == nil {
		return ""
	}
	return f.kn.Get(f.k)
}

func (f knobFlag) Set(v string) error { return f.kn.Set(f.k, v) }

// APIKeyEnv is the environment variable the mock reads its required key
// from when run by hand: a key on the command line shows in ps and docker
// inspect's Args.
const APIKeyEnv = "MOCK_API_KEY"

// APIKeyFileFlag names a file holding the required key: how the runner
// gives it, since docker inspect shows a container's environment too.
const APIKeyFileFlag = "api-key-file"

// Args are the flags that make a mock run with k, for its container's
// command; secrets are not among them (see Env).
func (k Knobs) Args() []string {
	var args []string
	for i := range Table {
		if kn := &Table[i]; kn.Type != SecretKnob {
			args = append(args, "-"+kn.Flag+"="+kn.Get(&k))
		}
	}
	return args
}
