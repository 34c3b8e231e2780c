"""JSON Schemas and conformance vectors of the DOM Action and Element Index protocol."""
