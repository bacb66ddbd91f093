# A short real run of LiteLLM built from PyPI (gateways/litellm/prepare.sh),
# so a broken recipe fails CI: the Python path for chat completions and
# Anthropic messages, the Rust core for messages (its x-litellm-rust header
# checked), and the Python path declared to need that header, which must
# fail at start: the check is not vacuous. One trial, short windows.
defaults {
  allow_host_paths = ["../../.."]
  trials   = 1
  warmup   = "300ms"
  duration = "1s"
  settle   = "200ms"
}

cpus {
  driver  = "0"
  mock    = "1"
  gateway = "1"
}

mock {
  port = 28210
  ttft = "0s"
  itl  = "2ms"
  output_tokens = 8
}

gateway "litellm" {
  compose    = "../../../compose/litellm.yaml"
  service    = "litellm"
  port       = 28211
  api        = ["openai", "anthropic"]
  api_models = { anthropic = "claude-mock" }
  api_key    = "sk-gatewaybench"
  prepare    = ["../../../gateways/litellm/prepare.sh"]
}

gateway "litellm-rust" {
  compose        = "../../../compose/litellm-rust.yaml"
  service        = "litellm"
  port           = 28212
  api            = ["anthropic"]
  model          = "claude-mock"
  api_key        = "sk-gatewaybench"
  prepare        = ["../../../gateways/litellm/prepare.sh"]
  expect_headers = { "x-litellm-rust" = "true" }
}

gateway "python-claims-rust" {
  compose        = "../../../compose/litellm.yaml"
  service        = "litellm"
  port           = 28213
  api            = ["anthropic"]
  model          = "claude-mock"
  api_key        = "sk-gatewaybench"
  prepare        = ["../../../gateways/litellm/prepare.sh"]
  expect_headers = { "x-litellm-rust" = "true" }
}

scenario "chat" {
  kind        = "overhead"
  concurrency = [1]
}

scenario "messages_stream" {
  kind        = "streaming_turn"
  api         = "anthropic"
  stream      = true
  concurrency = [2]
}
