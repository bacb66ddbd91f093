# A short real run of the AI gateways built offline, so a broken build
# recipe (npm, the Go module proxy, Debian) fails CI: Portkey and both
# one-api arms beside direct, one trial, streaming and not.
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
  port = 28200
  ttft = "0s"
  itl  = "2ms"
  output_tokens = 8
}

gateway "portkey" {
  compose = "../../../compose/portkey.yaml"
  service = "portkey"
  port    = 28201
  api     = ["openai", "responses", "anthropic"]
  prepare = ["../../../gateways/portkey/prepare.sh"]
  headers = {
    "x-portkey-provider"    = "openai"
    "x-portkey-custom-host" = "${mock.url}/v1"
  }
  api_headers = {
    anthropic = { "x-portkey-provider" = "anthropic" }
  }
}

gateway "one-api" {
  compose = "../../../compose/one-api.yaml"
  service = "one-api"
  port    = 28202
  api     = ["openai"]
  api_key = "sk-gatewaybench"
  prepare = ["../../../gateways/one-api/prepare.sh"]
}

gateway "one-api-tuned" {
  compose = "../../../compose/one-api-tuned.yaml"
  service = "one-api"
  port    = 28203
  api     = ["openai"]
  arm     = "tuned"
  api_key = "sk-gatewaybench"
  prepare = ["../../../gateways/one-api/prepare.sh"]
}

scenario "chat" {
  kind        = "overhead"
  concurrency = [1]
}

scenario "chat_stream" {
  kind        = "streaming_turn"
  stream      = true
  concurrency = [2]
}

scenario "messages_stream" {
  kind        = "streaming_turn"
  api         = "anthropic"
  stream      = true
  concurrency = [2]
}
