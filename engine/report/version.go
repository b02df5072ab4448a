package report

// SchemaVersion is the schema_version every JSON document of the render
// CLI carries (the render document, the context report and the diff).
// It goes up when a field is renamed or removed or its meaning changes;
// a new field does not change it, so readers should ignore keys they do
// not know. The schemas are in cmd/render/schemas.
const SchemaVersion = 1
