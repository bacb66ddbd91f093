scenario "overhead" {
  kind        = "overhead"
  concurrency = [1]
}
