package request

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
	"github.com/sysprompt/sysprompt/internal/echo"
)

// Set applies one "key=value" assignment to r as if r's file had said
// key = value, then validates r as Parse validates a file. The key is a
// dotted request key (date, channel.id); a string field takes the value
// as it is, any other field takes it as a TOML value on one line (true,
// ["a", "b"]). On an error r is left as it was; the error says what is
// wrong without a position, since the caller names the assignment.
func (r *Request) Set(assignment string) error {
	key, value, ok := strings.Cut(assignment, "=")
	if !ok || key == "" {
		return errors.New("want key=value, such as date=2026-11-30T09:15:00Z or channel.id=telegram")
	}
	for part := range strings.SplitSeq(key, ".") {
		// Bare TOML keys only, so the key cannot carry more TOML with it.
		if part == "" || strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return fmt.Errorf("%s is not a dotted request key such as channel.id", echo.Quote(key))
		}
	}
	if !utf8.ValidString(value) {
		return errors.New("the value is not UTF-8")
	}
	if t, ok := strict.TypeAt(reflect.TypeFor[Request](), strings.Split(key, ".")); !ok || t.Kind() == reflect.String {
		quoted, err := json.Marshal(value) // a JSON string is a TOML basic string
		if err != nil {
			return err
		}
		value = string(quoted)
	} else if strings.ContainsAny(value, "\r\n") {
		return fmt.Errorf("%s takes a TOML value on one line", key)
	}
	t := tomlRequest{Request: *r}
	t.ModelAliases = maps.Clone(r.ModelAliases) // the only map the decoder adds to in place
	src := key + " = " + value
	err := strict.TOML(src, &t)
	c := t.Request
	if err == nil {
		c, err = t.request(src)
	}
	if err != nil {
		if pe, ok := errors.AsType[*strict.PosError](err); ok {
			return errors.New(pe.Msg)
		}
		return err
	}
	if err := c.Validate(); err != nil {
		if ke, ok := err.(*KeyError); ok {
			return ke.Err
		}
		return err
	}
	*r = c
	return nil
}
