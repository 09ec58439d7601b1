package experiment

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/load"
	"github.com/latlab/latlab/store"
)

// gitTimeout bounds each git command CollectProvenance runs: a huge or
// networked work tree must not hold up the start of an experiment.
const gitTimeout = 3 * time.Second

// unknownFact stands for a fact that could not be read, where an empty value
// would look like an answer.
const unknownFact = "unknown"

// CollectProvenance describes the machine and the code an experiment runs
// on, at its start: host name, kernel, CPU model and count, CPU frequency
// governor, load average, Go and latlab versions, the shuffle seed and the
// git commit of specDir when it lies in a git work tree, with "+dirty"
// appended when tracked files have changes not committed. It never fails:
// a fact it cannot read is left empty, or "unknown" for the CPU model and
// governor. ctx bounds the git commands.
func CollectProvenance(ctx context.Context, specDir string, latlabVersion string, seed int64) store.Provenance {
	p := store.Provenance{
		Kernel:        kernel(),
		CPUModel:      cpuModel(),
		CPUCount:      cpuCount(),
		Governor:      governor(),
		LoadAverage:   loadAverage(),
		GoVersion:     runtime.Version(),
		LatlabVersion: latlabVersion,
		Seed:          seed,
		GitSHA:        gitSHA(ctx, specDir),
	}
	p.Host, _ = os.Hostname()
	extra := map[string]string{"go_num_cpu": strconv.Itoa(runtime.NumCPU())}
	if n := cpusOnline(); n > 0 {
		extra["cpus_online"] = strconv.Itoa(n)
	}
	p.Extra = extra
	return p
}

// kernel returns the system name, release and version, as uname -srv
// prints them.
func kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return ""
	}
	parts := []string{unix.ByteSliceToString(u.Sysname[:]), unix.ByteSliceToString(u.Release[:]),
		unix.ByteSliceToString(u.Version[:])}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// cpuModel returns the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return unknownFact
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
	}
	return unknownFact
}

// cpuCount returns how many CPUs this process may run on now: its
// affinity, which --cpus or taskset may have narrowed since runtime.NumCPU
// was read at start-up. It falls back to runtime.NumCPU.
func cpuCount() int {
	if s := procStatus("Cpus_allowed_list"); s != "" {
		if cpus, err := load.ParseCPUList(s); err == nil && len(cpus) > 0 {
			return len(cpus)
		}
	}
	return runtime.NumCPU()
}

// cpusOnline returns how many CPUs the machine has online, or 0.
func cpusOnline() int {
	data, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return 0
	}
	cpus, err := load.ParseCPUList(strings.TrimSpace(string(data)))
	if err != nil {
		return 0
	}
	return len(cpus)
}

// procStatus returns the value of key in /proc/self/status, or "".
func procStatus(key string) string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// governor returns CPU 0's frequency governor; virtual machines and
// containers often have none.
func governor() string {
	data, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	if s := strings.TrimSpace(string(data)); err == nil && s != "" {
		return s
	}
	return unknownFact
}

// loadAverage returns the 1, 5 and 15 minute load averages, or zeros.
func loadAverage() [3]float64 {
	var avg [3]float64
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return avg
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return avg
	}
	for i := range avg {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return [3]float64{}
		}
		avg[i] = v
	}
	return avg
}

// gitSHA returns the commit checked out in the work tree holding dir, with
// "+dirty" when tracked files differ from it, or "" when git is missing,
// dir is in no work tree or git takes longer than gitTimeout. Untracked
// files do not count: the results database itself often lies beside the
// spec, and would otherwise make every resumed experiment dirty.
func gitSHA(ctx context.Context, dir string) string {
	if dir == "" {
		dir = "."
	}
	sha, err := git(ctx, dir, "rev-parse", "--verify", "HEAD")
	if err != nil || sha == "" {
		return ""
	}
	status, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return sha
	}
	if status != "" {
		sha += "+dirty"
	}
	return sha
}

// git runs git -C dir args and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// Reading must not take the index lock that a concurrent git command
	// (an editor's, a hook's) may hold, nor refresh the index on disk.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
