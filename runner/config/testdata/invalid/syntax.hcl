scenario "x" {
  kind = "overhead"
  concurrency = [1,
} # want: Invalid expression
