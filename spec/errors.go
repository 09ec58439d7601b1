package spec

import "github.com/latlab/latlab/yamlfile"

// A SyntaxError reports bad input in a spec, as FILE:LINE: FIELD: MSG.
type SyntaxError = yamlfile.SyntaxError
