package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine"
	"github.com/sysprompt/sysprompt/engine/provider"
)

// providerFlags are the flags of -format anthropic and -format openai.
type providerFlags struct {
	model     string
	maxTokens int
	message   string
	given     []string // the names of those set on the command line
}

func (p *providerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.model, "model", "", "anthropic, openai: the body's `MODEL` (default: the request's runtime.model)")
	fs.IntVar(&p.maxTokens, "max-tokens", 0, fmt.Sprintf("`N` output tokens at most: anthropic max_tokens (default %d), openai max_output_tokens (default: unset; at least %d)", provider.DefaultMaxTokens, provider.MinOpenAIMaxTokens))
	fs.Func("message", "anthropic, openai: add one user message with `TEXT`", func(text string) error {
		if p.message != "" {
			return errors.New("given twice; a body takes one user message, append the rest of the conversation yourself")
		}
		switch {
		case text == "":
			return errors.New("empty; the APIs refuse an empty message")
		case strings.TrimSpace(text) == "":
			return errors.New("whitespace only; Anthropic refuses a message without other text")
		case !utf8.ValidString(text):
			return errors.New("not UTF-8; a JSON body would carry U+FFFD in its place")
		}
		p.message = text
		return nil
	})
}

// check refuses the provider flags for the other formats, where they
// would do nothing, and values no API takes. It runs after parsing.
func (p *providerFlags) check(fs *flag.FlagSet, format string) error {
	p.given = nil
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "model", "max-tokens", "message":
			p.given = append(p.given, f.Name)
		}
	})
	if len(p.given) > 0 && format != "anthropic" && format != "openai" {
		return &usageError{fmt.Sprintf("-%s applies only to -format anthropic or openai", p.given[0])}
	}
	for _, name := range p.given {
		switch {
		case name == "model" && p.model == "":
			return &usageError{"-model: empty; leave it out to use the request's runtime.model"}
		case name == "max-tokens" && p.maxTokens < minMaxTokens(format):
			return &usageError{fmt.Sprintf("-max-tokens %d: want at least %d for -format %s", p.maxTokens, minMaxTokens(format), format)}
		}
	}
	return nil
}

// minMaxTokens is the least -max-tokens the format's API takes.
func minMaxTokens(format string) int {
	if format == "openai" {
		return provider.MinOpenAIMaxTokens
	}
	return 1
}

// write prints the request body of format for res.
func (p *providerFlags) write(w io.Writer, format string, res *engine.Result, rt engine.Runtime) error {
	opts := []provider.Option{provider.Model(p.model)}
	for _, name := range p.given {
		if name == "max-tokens" {
			opts = append(opts, provider.MaxTokens(p.maxTokens))
		}
	}
	if p.message != "" {
		opts = append(opts, provider.Messages(provider.Message{Role: "user", Content: p.message}))
	}
	var body any
	var err error
	if format == "anthropic" {
		body, err = provider.Anthropic(res, rt, opts...)
	} else {
		body, err = provider.OpenAI(res, rt, opts...)
	}
	switch {
	case errors.Is(err, provider.ErrNoModel) || errors.Is(err, provider.ErrOtherProvider):
		return fmt.Errorf("%w; -model NAME names one", err)
	case errors.Is(err, provider.ErrHarness):
		return fmt.Errorf("%w; use -format json to get the layers", err)
	}
	if err != nil {
		return err
	}
	out, err := provider.MarshalIndent(body)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// placeTool puts a provider's refusal of a tool where the request file
// defines that tool, unless -set gave the tools instead.
func (c *common) placeTool(err error) error {
	i, ok := provider.RefusedTool(err)
	if !ok || c.requestSrc == nil {
		return err
	}
	for _, a := range c.sets {
		if strings.HasPrefix(a, "tools") {
			return err
		}
	}
	if line, col := engine.ToolPosition(c.requestSrc, i); line > 0 {
		return fmt.Errorf("%s:%d:%d: %w", c.requestLabel, line, col, err)
	}
	return err
}
