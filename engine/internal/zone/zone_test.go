package zone

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadOncePerName(t *testing.T) {
	a, err := Load("Europe/Lisbon")
	require.NoError(t, err)
	b, err := Load("Europe/Lisbon")
	require.NoError(t, err)
	assert.Same(t, a, b, "the second load is the first location")
	_, err = Load("Mars/Olympus")
	assert.Error(t, err)
}
