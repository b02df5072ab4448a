package tidy

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestText(t *testing.T) {
	cases := []struct {
		in        string
		protected []string
		want      string
	}{
		{"  a\n\nb  ", nil, "a\n\nb"},
		{"a\n\n\n\nb\n\n\nc", nil, "a\n\nb\n\nc"},
		{"head\n\n\n\nfile\n\n\n\nbody\n\n\n\ntail", []string{"file\n\n\n\nbody"}, "head\n\nfile\n\n\n\nbody\n\ntail"},
		{"x\n\n\ny\n\n\nx\n\n\ny", []string{"x\n\n\ny"}, "x\n\n\ny\n\nx\n\n\ny"},
		// Overlapping injected texts: both stay whole, whichever is listed first.
		{"a\n\n\nb\n\n\nc\n\n\nd", []string{"a\n\n\nb\n\n\nc", "c\n\n\nd"}, "a\n\n\nb\n\n\nc\n\n\nd"},
		{"a\n\n\nb\n\n\nc\n\n\nd", []string{"c\n\n\nd", "a\n\n\nb\n\n\nc"}, "a\n\n\nb\n\n\nc\n\n\nd"},
		{"a\n\n\nb\n\n\nc\n\n\nd", []string{"b\n\n\nc"}, "a\n\nb\n\n\nc\n\nd"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, Text(tc.in, tc.protected), "%q", tc.in)
	}
}
