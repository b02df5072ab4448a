package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/sysprompt/sysprompt/engine/internal/strict"
)

// Schema is a tool's JSON schema as JSON text, an object, or empty for
// none. The prompt never reads it, so a request keeps it as written and
// only a provider body or a report decodes it (Value): decoding a dozen
// schemas into maps took half of a JSON request's parse. Parse keeps a
// TOML request's schema table as the JSON it stands for.
type Schema []byte

// UnmarshalJSON keeps an object as written; null is no schema. The
// decoder has checked that data is JSON, within the document's bounds.
func (s *Schema) UnmarshalJSON(data []byte) error {
	switch data[0] {
	case '{':
		*s = bytes.Clone(data)
		return nil
	case 'n':
		*s = nil
		return nil
	}
	return &json.UnmarshalTypeError{Value: strict.JSONKind(data[0]), Type: reflect.TypeFor[map[string]any]()}
}

// MarshalJSON writes the schema as kept, or null.
func (s Schema) MarshalJSON() ([]byte, error) {
	if len(s) == 0 {
		return []byte("null"), nil
	}
	return s, nil
}

// tomlRequest is how a TOML request is decoded: its tools' schemas as
// tables (what BurntSushi/toml decodes cheaply; a Schema's own decoder
// would mark every key under it, quadratic in a deep table), each then
// kept as the JSON it stands for. The outer Tools hides Request's.
type tomlRequest struct {
	Tools []tomlTool `toml:"tools"`
	Request
}

type tomlTool struct {
	Name        string         `toml:"name"`
	Description string         `toml:"description"`
	Schema      map[string]any `toml:"schema"`
}

// request is the Request a TOML request stands for; without tools it
// keeps Request's (Set's document sets one key). encoding/json writes a
// schema table's keys sorted, its integers and floats as Go does, and its
// date-times with an offset in RFC 3339; local ones keep their TOML text.
func (t *tomlRequest) request(src string) (Request, error) {
	req := t.Request
	if t.Tools == nil {
		return req, nil
	}
	req.Tools = make([]Tool, 0, len(t.Tools))
	for i, tool := range t.Tools {
		var schema Schema
		if tool.Schema != nil {
			text, err := json.Marshal(tomlTimes(tool.Schema))
			if err != nil {
				line, col := strict.LocateKey(src, "tools.schema")
				return Request{}, &strict.PosError{Line: line, Col: col, Key: "tools.schema", Msg: fmt.Sprintf("tools[%d].schema cannot be JSON: %v", i, err)}
			}
			schema = text
		}
		req.Tools = append(req.Tools, Tool{Name: tool.Name, Description: tool.Description, Schema: schema})
	}
	return req, nil
}

// tomlTimes replaces the TOML local dates, times and date-times in a
// decoded value with their TOML text: they have no zone, and the decoder
// gives them the machine's, which JSON would print, so a schema's bytes
// would follow TZ. It names them by the zones the decoder marks them with.
func tomlTimes(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = tomlTimes(e)
		}
	case []map[string]any:
		for _, m := range v {
			tomlTimes(m)
		}
	case []any:
		for i, e := range v {
			v[i] = tomlTimes(e)
		}
	case time.Time:
		switch v.Location().String() {
		case "datetime-local":
			return v.Format("2006-01-02T15:04:05.999999999")
		case "date-local":
			return v.Format(time.DateOnly)
		case "time-local":
			return v.Format("15:04:05.999999999")
		}
	}
	return v
}

// Value decodes the schema, numbers as json.Number so that they are sent
// as written; none is nil.
func (s Schema) Value() (any, error) {
	if len(s) == 0 {
		return nil, nil
	}
	var v any
	if err := strict.JSON(s, &v); err != nil {
		return nil, fmt.Errorf("schema is not JSON: %v", err)
	}
	return v, nil
}
