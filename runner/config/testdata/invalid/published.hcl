# published blocks: a seed benchmark's table beside the scenario that
# applies its method (issue 64)

gateway "gw" {
  compose = "x.yaml"
  service = "x"
  port    = 18090
  api     = ["openai"]
}

gateway "elsewhere" {
  compose   = "x.yaml"
  service   = "x"
  port      = 18091
  api       = ["openai"]
  scenarios = ["other"]
}

scenario "load" {
  kind        = "throughput"
  concurrency = [20]
}

scenario "other" {
  kind        = "overhead"
  concurrency = [1]
}

published "ok" {
  source   = "https://example.com/bench.md"
  method   = "ab -k -c 20 -n 5000"
  host     = "a laptop"
  scenario = "load"
  figure "gw" {
    rps    = 100
    p99_ms = 3
  }
  figure "direct" {
    rps = 200
  }
}

published "Bad Name" { # want: Invalid published name
  source   = "http://example.com/x" # want: Invalid source
  method   = "a | b" # want: Invalid text
  host     = " " # want: Empty text
  scenario = "other" # want: Not a published method's scenario
  figure "gw" {
    rps = 0 # want: Value out of range
  }
}

published "ok" { # want: Duplicate published block
  source   = "https://example.com/bench.md"
  method   = "m"
  host     = "h"
  scenario = "nowhere" # want: Unknown scenario
  figure "gw" {
    rps = 1
  }
}

published "arms" {
  source   = "https://example.com/bench.md"
  method   = "m"
  host     = "h"
  scenario = "load"
  figure "elsewhere" { # want: Arm not in the scenario
    rps = 1
  }
  figure "nobody" { # want: Unknown arm
    rps = 1
  }
  figure "gw" {
    rps    = 1
    p99_ms = -1 # want: Value out of range
  }
  figure "gw" { # want: Duplicate figure
    rps = 1
  }
}

published "empty" { # want: No figures
  source   = "https://example.com/bench.md"
  method   = "m"
  host     = "h"
  scenario = "load"
}
