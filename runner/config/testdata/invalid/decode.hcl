frobnicate {} # want: Unsupported block type

defaults {
  trials   = "three" # want: Unsuitable value type
  warmup   = "2 seconds" # want: Invalid duration
  duration = "0s" # want: Value out of range
  floor    = "nobody" # want: Unknown floor gateway
  settle   = "1000h" # want: Value out of range
  stacks   = "shared" # want: Invalid stacks
}

cpus {
  driver  = "0"
  mock    = "3-1" # want: Invalid cpuset
  gateway = "0" # want: Overlapping cpusets
}

memory {
  gateway = "lots" # want: Invalid memory size
  driver  = "NaN" # want: Invalid memory size
}

mock {
  tfft       = "1s" # want: Unsupported argument
  error_rate = 1.5 # want: Value out of range
  padding_bytes = 4611686018427387904 # want: Value out of range
}

gateway "direct" { # want: Reserved gateway name
  compose = "x.yaml"
  service = "x"
  port    = 70000 # want: Invalid port
  api     = ["grpc"] # want: Unknown API
}

gateway "Bad Name" { # want: Invalid gateway name
  compose = "x.yaml"
  service = "x"
  port    = 18090
  api     = ["openai"]
  api_headers = { anthropic = { "x" = "y" } } # want: Headers for an API the gateway does not serve
  api_models = { responses = "m" } # want: Model for an API the gateway does not serve
  overhead_header = "x overhead" # want: Invalid header name
}

gateway "twice" {
  compose = "x.yaml"
  service = "x"
  port    = 18091
  api     = ["openai"]
  release_of = "twice" # want: Unknown gateway
}

gateway "twice" { # want: Duplicate gateway
  compose = "x.yaml"
  service = "x"
  port    = 18092
  api     = ["openai"]
}

scenario "a" {
  kind        = "latency_party"
  concurrency = [1, 0] # want: Value out of range
  gateways    = ["nobody"] # want: Unknown gateway
}

scenario "a" { # want: Duplicate scenario
  kind        = "overhead"
  concurrency = [1]
}

scenario "empty" { # want: No load points
  kind = "overhead"
}

gateway "injector" {
  compose = "x.yaml"
  service = "x"
  port    = 18095
  api     = ["openai"]
  headers = { "x-a" = "ok\r\nX-Injected: 1", "Host" = "evil", "Bad Name" = "x" } # want: Header the driver cannot send
  api_key = "sk\nevil" # want: Control character in a request value
}

engine "far" {
  host    = "http://far:2375" # want: Invalid engine host
  address = "far.example" # want: Invalid address
}

engine "both" {
  context = "lab"
  host    = "tcp://lab:2375" # want: Both context and host
}

placement {
  mock = "nowhere" # want: Unknown engine
}

driver {
  instances = 100 # want: Value out of range
  engines   = ["local", "elsewhere"] # want: Unknown engine
}

gateway "replicated" {
  compose      = "x.yaml"
  service      = "x"
  port         = 18096
  api          = ["openai"]
  replicas     = 3
  replica_cpus = ["0", "1"] # want: One cpuset per replica
}

gateway "next_door" {
  compose = "x.yaml"
  service = "x"
  port    = 18097 # want: Port already in use
  api     = ["openai"]
}

gateway "balanced" {
  compose  = "x.yaml"
  service  = "x"
  port     = 18120
  api      = ["openai"]
  replicas = 2
  balancer {
    compose = "lb.yaml"
    service = "lb"
    port    = 18121 # want: Port already in use
    cpus    = "a-b" # want: Invalid cpuset
  }
}

scenario "shares_without_source" { # want: Capacity shares need both attributes
  kind            = "throughput"
  capacity_shares = [0.5]
}

scenario "shares_from_later" {
  kind            = "throughput"
  capacity_shares = [0.5]
  capacity_from   = "later" # want: Unknown capacity scenario
}

scenario "shares_too_big" {
  kind            = "throughput"
  capacity_shares = [0.5, 9] # want: Value out of range
  capacity_from   = "a"
}

scenario "later" {
  kind        = "throughput"
  concurrency = [8]
}
