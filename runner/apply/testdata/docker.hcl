# A small real run: mock, direct, an honest nginx, a buffering and a
# rewriting nginx that must be flagged, two gateways that fail at start, and
# a key flood that must flag the nginx that passes invalid keys on and pass
# the one that checks them, small turns beside a 100k-token stream, and
# clients that leave streams early, which an nginx that ignores their
# leaving must be flagged for; and a mock that fails a fifth of its
# requests, which the nginx with a fallback must recover and the nginx that
# answers 200 in their place must be failed for.
defaults {
  allow_host_paths = ["../../.."]
  trials   = 1
  warmup   = "200ms"
  duration = "1s"
  settle   = "200ms"
}

cpus {
  driver  = "0"
  mock    = "0"
  gateway = "1"
}

memory {
  mock    = "256MiB"
  gateway = "64MiB"
}

mock {
  port = 28180
  fallback_port = 28179
  ttft = "0s"
  itl  = "2ms"
  output_tokens = 8
}

gateway "nginx" {
  class    = "proxy"
  fallback = true
  compose  = "../../../compose/nginx.yaml"
  service = "nginx"
  port    = 28181
  api     = ["openai", "anthropic"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

gateway "crash" {
  compose = "compose/crash.yaml"
  service = "app"
  port    = 28182
  api     = ["openai"]
  prepare = ["./prepare-app.sh", "crash"]
}

gateway "oom" {
  compose = "compose/oom.yaml"
  service = "app"
  port    = 28183
  api     = ["openai"]
  prepare = ["./prepare-app.sh", "oom"]
}

gateway "nginx-buffering" {
  class   = "proxy"
  compose = "compose/nginx-buffering.yaml"
  service = "nginx"
  port    = 28184
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

gateway "nginx-rewrite" {
  class   = "proxy"
  compose = "compose/nginx-rewrite.yaml"
  service = "nginx"
  port    = 28185
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

gateway "nginx-keycheck" {
  class   = "proxy"
  compose = "compose/nginx-keycheck.yaml"
  service = "nginx"
  port    = 28186
  api     = ["openai"]
  api_key = "sk-client-test"
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

gateway "nginx-ignore-abort" {
  class   = "proxy"
  compose = "compose/nginx-ignore-abort.yaml"
  service = "nginx"
  port    = 28187
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

gateway "nginx-hide-errors" {
  class   = "proxy"
  compose = "compose/nginx-hide-errors.yaml"
  service = "nginx"
  port    = 28188
  api     = ["openai"]
  prepare = ["../../../gateways/nginx/prepare.sh"]
}

scenario "session" {
  kind        = "session"
  api         = "anthropic"
  session     = "../../../scenarios/claude-code.json"
  concurrency = [1]
  gateways    = ["nginx"]
  mock {
    itl = "0s" # a tool call streams in ~40 events: at 2ms each, a 30-turn session outlasts the window
  }
}

scenario "failover" {
  kind        = "failover"
  concurrency = [4]
  gateways    = ["nginx", "nginx-hide-errors"]
  mock {
    error_rate   = 0.2
    error_status = 500
  }
}

scenario "cancellation" {
  kind         = "cancellation"
  stream       = true
  concurrency  = [2]
  cancel_after = [4]
  gateways     = ["nginx", "nginx-ignore-abort"]
  mock {
    output_tokens = 40
    itl           = "10ms"
  }
}

scenario "key_flood" {
  kind        = "key_flood"
  concurrency = [4]
  gateways    = ["nginx", "nginx-keycheck"]
  mock {
    api_key = "sk-upstream-test"
  }
}

scenario "head_of_line" {
  kind          = "head_of_line"
  stream        = true
  prompt_tokens = [100000]
  concurrency   = [2]
  gateways      = ["nginx"]
}

scenario "overhead" {
  kind        = "overhead"
  stream      = true
  concurrency = [1, 4]
  gateways    = ["nginx", "crash", "oom", "nginx-buffering", "nginx-rewrite", "nginx-keycheck"]
}
