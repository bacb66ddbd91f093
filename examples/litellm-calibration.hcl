# LiteLLM at the load points the published benchmarks quote, with windows
# long enough for a p99 (500 samples) at LiteLLM's pace: one client, 20
# clients (Cortiq: 4 workers, 20 clients) and 32 connections on Anthropic
# messages (linsun: `rust: true`, 32 connections). Same CPU layout, mock and
# gateway configurations as benchmarks.hcl; docs/findings.md quotes it.
#
#   go run ./runner apply examples/litellm-calibration.hcl --results /tmp/litellm-calibration
defaults {
  allow_host_paths = [".."]
  trials   = 3
  warmup   = "1s"
  duration = "10s"
  settle   = "500ms"
  floor    = "nginx"
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

mock {
  port = 18080
}

gateway "nginx" {
  compose = "../compose/nginx.yaml"
  service = "nginx"
  class   = "proxy"
  port    = 18081
  api     = ["openai", "anthropic"]
  prepare = ["../gateways/nginx/prepare.sh"]
}

gateway "litellm" {
  compose    = "../compose/litellm.yaml"
  service    = "litellm"
  port       = 18087
  api        = ["openai", "anthropic"]
  api_models = { anthropic = "claude-mock" }
  api_key    = "sk-gatewaybench"
  prepare    = ["../gateways/litellm/prepare.sh"]
}

gateway "litellm-rust" {
  compose        = "../compose/litellm-rust.yaml"
  service        = "litellm"
  port           = 18090
  api            = ["anthropic"]
  model          = "claude-mock"
  api_key        = "sk-gatewaybench"
  prepare        = ["../gateways/litellm/prepare.sh"]
  expect_headers = { "x-litellm-rust" = "true" }
}

gateway "litellm-rs" {
  compose = "../compose/litellm-rs.yaml"
  service = "litellm-rs"
  port    = 18094
  api     = ["openai"]
  prepare = ["../gateways/litellm-rs/prepare.sh"]
}

scenario "chat" {
  kind        = "overhead"
  api         = "openai"
  concurrency = [1, 20]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}

scenario "messages" {
  kind        = "overhead"
  api         = "anthropic"
  concurrency = [1, 32]
  mock {
    ttft = "0s"
    itl  = "0s"
  }
}
