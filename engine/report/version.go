package report

// SchemaVersion is the schema_version every JSON document of the render
// CLI carries (the render document, the context report and the diff).
// It goes up whenever a document's shape changes (a field added, renamed
// or removed, or its meaning changed), so the schemas in
// cmd/render/schemas, which allow no other keys, describe each version
// exactly.
const SchemaVersion = 3
