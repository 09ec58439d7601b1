package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/latlab/latlab/store"
)

// WarnPending warns, first of all, when runs measured for the database at
// dbPath could not be committed to it and wait in side files beside it
// (store.SavePending): the report does not count them until latlab run
// or latlab attack -o, writing to the database, takes them in.
func (r *Experiment) WarnPending(dbPath string) error {
	side, err := store.PendingFiles(dbPath)
	if err != nil || len(side) == 0 {
		return err
	}
	names := make([]string, len(side))
	for i, s := range side {
		names[i] = filepath.Base(s)
	}
	w := fmt.Sprintf("%d measured run(s) could not be committed and wait in side files beside the database, which this report does not count: %s; latlab run or latlab attack -o on %s takes them in",
		len(side), strings.Join(names, ", "), filepath.Base(dbPath))
	r.Warnings = append([]string{w}, r.Warnings...)
	return nil
}
