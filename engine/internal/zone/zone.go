// Package zone loads IANA time zones once: time.LoadLocation reads the
// zone database on every call, and both the config check and every
// render that prints a date need one.
package zone

import (
	"sync"
	"time"
)

// zones holds every location loaded so far. A location never changes once
// loaded, and the names are bounded by the zone database, so it is shared
// by every engine.
var zones sync.Map // name -> *time.Location

// Load is time.LoadLocation, loaded once per name.
func Load(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}
