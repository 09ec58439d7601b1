// Package yamlfile holds what every parser of a file users write in YAML
// shares — topology files, experiment specs, scenarios: the SyntaxError that
// names FILE:LINE: FIELD, the line count YAML itself uses, turning the YAML
// parser's own errors into SyntaxErrors, naming a node's kind in messages,
// and the message for an unknown field, which suggests the known field
// nearest by edit distance ("rnus: unknown field; did you mean runs?"),
// and the Decoder every such parser reads its nodes with: strict mappings
// (no repeated keys, no merge keys), sequences, a bound on what aliases
// expand to, and scalars — strings, booleans, bounded integers, numbers,
// rates (500/s, as the command line's -r), durations, percentages, words
// of a set, URLs (whose message, from ParseURL, the command line gives
// too). A Decoder collects every
// problem of a file instead of stopping at the first, and its error lists
// them by line, MaxProblems at most.
//
// ExampleParseError turns a YAML parser's error into FILE:LINE: message.
//
// ExampleDecoder shows a parser built on a Decoder.
//
// Everything here but a Decoder is a pure function of its arguments and
// safe to call concurrently; a Decoder is for one goroutine.
package yamlfile
