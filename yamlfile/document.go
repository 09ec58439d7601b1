package yamlfile

import (
	"bytes"
	"errors"
	"io"

	"go.yaml.in/yaml/v3"
)

// Document parses data, the file called file, as exactly one YAML
// document and returns its root node. An empty or null document is a
// *SyntaxError saying empty; a second document or a parser error is a
// *SyntaxError at its line.
func Document(file string, data []byte, empty string) (*yaml.Node, error) {
	lines := Lines(data)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, extra yaml.Node
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) || err == nil && (len(doc.Content) == 0 || Deref(doc.Content[0]).ShortTag() == "!!null") {
		return nil, &SyntaxError{File: file, Msg: empty}
	} else if err != nil {
		return nil, ParseError(file, lines, err)
	}
	if err := dec.Decode(&extra); err == nil {
		return nil, &SyntaxError{File: file, Line: min(extra.Line, lines), Msg: "more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		return nil, ParseError(file, lines, err)
	}
	return doc.Content[0], nil
}
