package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// The official SDKs are the real clients: every response shape the mock
// sends must be accepted by them, streamed tool arguments included.

type toolArgs struct {
	City  string `json:"city"`
	Query string `json:"query"`
	Note  string `json:"note"`
	Raw   string `json:"raw"`
	N     int    `json:"n"`
}

// checkArgs parses reassembled arguments: the escapes split across deltas
// (\u00fc, the surrogate pair of the rocket) must decode to the characters.
func checkArgs(t *testing.T, raw string) {
	t.Helper()
	var a toolArgs
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		t.Fatalf("arguments %q do not parse: %v", raw, err)
	}
	if a.City != "Zürich" || a.Note != "naïve café 東京 🚀" || a.Raw != "東京 café 🚀" {
		t.Errorf("arguments decoded wrong: %+v", a)
	}
}

func openaiClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0))
}

func weatherTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:       "get_weather",
		Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
	})
}

func TestOpenAIChatSDK(t *testing.T) {
	url, _ := start(t, fast())
	c := openaiClient(url)
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{
		Model:    "mock-model",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(strings.Repeat("hello ", 100))},
	}

	resp, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content == "" || resp.Usage.CompletionTokens != 12 || resp.Usage.PromptTokens < 100 {
		t.Errorf("json: content %q usage %+v", resp.Choices[0].Message.Content, resp.Usage)
	}

	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if got := acc.Choices[0].Message.Content; got != resp.Choices[0].Message.Content {
		t.Errorf("stream content %q != json content %q", got, resp.Choices[0].Message.Content)
	}
	if acc.Usage.TotalTokens != resp.Usage.TotalTokens {
		t.Errorf("stream usage %+v != json usage %+v", acc.Usage, resp.Usage)
	}

	params.Tools = []openai.ChatCompletionToolUnionParam{weatherTool()}
	resp, err = c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].FinishReason != "tool_calls" || resp.Choices[0].Message.ToolCalls[0].Function.Name != "get_weather" {
		t.Errorf("tool json: %+v", resp.Choices[0])
	}
	checkArgs(t, resp.Choices[0].Message.ToolCalls[0].Function.Arguments)

	stream = c.Chat.Completions.NewStreaming(ctx, params)
	acc = openai.ChatCompletionAccumulator{}
	var finished bool
	for stream.Next() {
		acc.AddChunk(stream.Current())
		if tc, ok := acc.JustFinishedToolCall(); ok {
			finished = true
			checkArgs(t, tc.Arguments)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if !finished {
		t.Error("the SDK never saw the streamed tool call finish")
	}
}

func TestOpenAIErrorsSDK(t *testing.T) {
	url, _ := start(t, fast())
	c := openaiClient(url)
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "mock-model",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, option.WithHeader("X-Mock-Error-Rate", "1"), option.WithHeader("X-Mock-Error-Status", "429"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Type != "rate_limit_error" {
		t.Fatalf("want a 429 rate_limit_error, got %v", err)
	}

	stream := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "mock-model",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	}, option.WithHeader("X-Mock-Midstream-Error-At", "3"))
	n := 0
	for stream.Next() {
		n++
	}
	if stream.Err() == nil {
		t.Fatal("mid-stream error not surfaced by the SDK")
	}
	if n != 4 { // the role chunk and three content chunks came before the error
		t.Errorf("chunks before the error = %d, want 4", n)
	}
}

func TestOpenAIResponsesSDK(t *testing.T) {
	url, _ := start(t, fast())
	c := openaiClient(url)
	ctx := context.Background()
	params := responses.ResponseNewParams{
		Model: "mock-model",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("write a haiku")},
	}
	resp, err := c.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.OutputText()
	if text == "" || resp.Usage.OutputTokens != 12 {
		t.Errorf("json: %q usage %+v", text, resp.Usage)
	}

	stream := c.Responses.NewStreaming(ctx, params)
	var deltas strings.Builder
	var completed bool
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			deltas.WriteString(ev.Delta)
		case "response.completed":
			completed = ev.Response.OutputText() == text
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if deltas.String() != text || !completed {
		t.Errorf("stream deltas %q, completed %v; want %q", deltas.String(), completed, text)
	}

	params.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{
		Name: "shell", Parameters: map[string]any{"type": "object"},
	}}}
	resp, err = c.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	call := resp.Output[0].AsFunctionCall()
	if call.Name != "shell" {
		t.Errorf("function call: %+v", resp.Output[0])
	}
	checkArgs(t, call.Arguments)

	stream = c.Responses.NewStreaming(ctx, params)
	var args strings.Builder
	var done string
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.function_call_arguments.delta":
			args.WriteString(ev.Delta)
		case "response.function_call_arguments.done":
			done = ev.Arguments
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	checkArgs(t, args.String())
	if done != args.String() {
		t.Errorf("done arguments %q != reassembled %q", done, args.String())
	}
}

func TestAnthropicSDK(t *testing.T) {
	url, _ := start(t, fast())
	c := anthropic.NewClient(aoption.WithBaseURL(url), aoption.WithAPIKey("sk-test"), aoption.WithMaxRetries(0))
	ctx := context.Background()
	params := anthropic.MessageNewParams{
		Model:     "mock-model",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello there"))},
	}
	msg, err := c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content[0].Text == "" || msg.StopReason != "end_turn" || msg.Usage.OutputTokens != 12 {
		t.Errorf("json: %+v", msg)
	}

	stream := c.Messages.NewStreaming(ctx, params)
	acc := anthropic.Message{}
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.Content[0].Text != msg.Content[0].Text || acc.Usage.OutputTokens != 12 {
		t.Errorf("stream %q (usage %+v) != json %q", acc.Content[0].Text, acc.Usage, msg.Content[0].Text)
	}

	params.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
		Name: "get_weather", InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}},
	}}}
	msg, err = c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != "tool_use" || msg.Content[0].Name != "get_weather" {
		t.Errorf("tool json: %+v", msg)
	}
	checkArgs(t, string(msg.Content[0].Input))

	stream = c.Messages.NewStreaming(ctx, params)
	acc = anthropic.Message{}
	for stream.Next() {
		if err := acc.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	checkArgs(t, string(acc.Content[0].Input))

	_, err = c.Messages.New(ctx, params, aoption.WithHeader("X-Mock-Error-Rate", "1"), aoption.WithHeader("X-Mock-Error-Status", "503"))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
		t.Fatalf("want a 503, got %v", err)
	}

	stream = c.Messages.NewStreaming(ctx, params, aoption.WithHeader("X-Mock-Midstream-Error-At", "2"))
	for stream.Next() {
	}
	if stream.Err() == nil {
		t.Error("mid-stream error event not surfaced by the SDK")
	}
}
