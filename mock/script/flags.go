package script

import (
	"flag"
	"strconv"
)

// RegisterFlags defines the mock's knob flags on fs, defaulting to k.
func (k *Knobs) RegisterFlags(fs *flag.FlagSet) {
	fs.DurationVar(&k.TTFT, "ttft", k.TTFT, "time to first content event")
	fs.DurationVar(&k.ITL, "itl", k.ITL, "interval between content events")
	fs.DurationVar(&k.Jitter, "jitter", k.Jitter, "max seeded jitter per interval")
	fs.Uint64Var(&k.Seed, "seed", k.Seed, "seed for content, jitter and error draws")
	fs.IntVar(&k.OutputTokens, "tokens", k.OutputTokens, "content events per response")
	fs.IntVar(&k.DeltaChars, "delta-chars", k.DeltaChars, "characters per content event")
	fs.Float64Var(&k.ErrorRate, "error-rate", k.ErrorRate, "fraction of requests that fail with -error-status")
	fs.IntVar(&k.ErrorStatus, "error-status", k.ErrorStatus, "status of injected errors")
	fs.DurationVar(&k.RetryAfter, "retry-after", k.RetryAfter, "Retry-After of injected 429/503")
	fs.IntVar(&k.MidstreamAt, "midstream-error-at", k.MidstreamAt, "error event after content event k (0 = never)")
	fs.Float64Var(&k.HangRate, "hang-rate", k.HangRate, "fraction of requests that never answer")
	fs.Float64Var(&k.ResetRate, "reset-rate", k.ResetRate, "fraction of requests whose connection is reset")
	fs.StringVar(&k.APIKey, "api-key", k.APIKey, "require this API key (visible to ps: prefer the "+APIKeyEnv+" environment variable)")
	fs.IntVar(&k.PaddingBytes, "padding", k.PaddingBytes, "extra bytes in JSON answers")
}

// APIKeyEnv is the environment variable the mock reads its required key
// from: a key on the command line shows in ps and docker inspect's Args.
const APIKeyEnv = "MOCK_API_KEY"

// Env is the environment that goes with Args: the required key, if any.
func (k Knobs) Env() map[string]string {
	if k.APIKey == "" {
		return nil
	}
	return map[string]string{APIKeyEnv: k.APIKey}
}

// Args are the flags that make a mock run with k, for its container's
// command; the API key is not among them (see Env).
func (k Knobs) Args() []string {
	return []string{
		"-ttft=" + k.TTFT.String(), "-itl=" + k.ITL.String(), "-jitter=" + k.Jitter.String(),
		"-seed=" + strconv.FormatUint(k.Seed, 10), "-tokens=" + strconv.Itoa(k.OutputTokens),
		"-delta-chars=" + strconv.Itoa(k.DeltaChars),
		"-error-rate=" + strconv.FormatFloat(k.ErrorRate, 'g', -1, 64), "-error-status=" + strconv.Itoa(k.ErrorStatus),
		"-retry-after=" + k.RetryAfter.String(), "-midstream-error-at=" + strconv.Itoa(k.MidstreamAt),
		"-hang-rate=" + strconv.FormatFloat(k.HangRate, 'g', -1, 64),
		"-reset-rate=" + strconv.FormatFloat(k.ResetRate, 'g', -1, 64),
		"-padding=" + strconv.Itoa(k.PaddingBytes),
	}
}
