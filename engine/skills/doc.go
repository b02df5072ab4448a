// Package skills finds the skills an agent may use and decides which of them
// fit in the prompt's skills catalog.
//
// A skill is a folder holding a SKILL.md file that starts with YAML front
// matter. [Discover] walks the skill roots (see [Sources]),
// parses each SKILL.md, computes its version marker and resolves name clashes
// by root precedence. [Eligible] applies the config and runtime gates, and
// [Build] applies both and then the catalog budget, reporting what happened to
// every skill. The catalog text itself is a template in the pack; Build only
// asks the caller, through a [MeasureFunc], how long a candidate catalog would
// render.
//
// A caller runs the two steps; each root is read through a [Files], usually
// a *vfs.Workspace, so no read leaves the root:
//
//	found, err := skills.Discover(ctx, roots, skills.Options{Home: home})
//	cat, err := skills.Build(found, policy, limits, measure)
//
// Neither step keeps anything between calls: how often to rebuild a
// catalog is the caller's choice (the engine keeps one per session).
//
// When only descriptions had to go, Catalog.Note stays empty and
// Catalog.Descriptions is false; the note ("N of M skills listed") appears
// only when skills were left out.
//
// Everything that depends on the machine (OS, PATH lookup, environment,
// config values, the user's home directory) is passed in, so the same inputs
// give the same catalog anywhere.
//
// # SKILL.md front matter
//
// The file must start with a line "---" and the YAML ends at the next line
// "---". Accepted keys (others are ignored, so skills written for other tools
// still load):
//
//	name: pdf-tools             # optional; defaults to the folder name (see below)
//	description: Fill PDF forms  # optional; may be empty
//	metadata:
//	  os: [linux, darwin]        # list or one string; win32 = windows, macos = darwin
//	  always: false              # true skips the requires gates
//	  skillKey: pdf              # key under skills.entries; defaults to name
//	  primaryEnv: PDF_KEY        # informational only
//	  requires:
//	    bins: [qpdf]             # all on PATH; names, not paths
//	    anyBins: [gs, mutool]    # at least one on PATH
//	    env: [PDF_TOKEN]         # each non-empty in the environment or skills.entries.<key>.env
//	    config: [browser.enabled] # each dotted config path truthy
//
// Each list holds at most 64 entries of at most 256 bytes, aliases
// included, so a small file cannot make its reasons and PATH lookups huge.
//
// The metadata fields may also sit one level down, under metadata.openclaw,
// as the original product writes them; when that mapping is present it is used
// and its siblings are ignored.
//
// # Discovery rules
//
// A root's directory holds skill folders, which may be grouped in nested
// folders (skills/personal/foo/SKILL.md) up to four levels deep; the skill's
// name is still the flat front-matter name. A folder holding SKILL.md is a
// skill and is not searched further. Names starting with "." are skipped;
// a folder whose name holds a control character or invalid UTF-8 is
// skipped and reported, as its skills' locations could not show it.
// Symlinks below a root's Dir are never followed (each is reported as a
// problem), so a walk cannot leave its root. Listings are sorted here, never
// trusted to come sorted. A SKILL.md over 256 KiB, with a front matter over
// 16 KiB or with broken front matter is skipped and reported with its
// line; it never fails the build.
//
// A name must be 1 to 64 lowercase letters a-z, digits and hyphens, with no
// hyphen first, last or next to another; a skill named otherwise is
// skipped, with the reason. A name that differs from its folder's is only
// a warning (Found.Warnings).
//
// Discovery is bounded: at most 1,000 directory entries are read per root,
// its nested folders included (a folder's listing is read before the
// folders in it), and at most 2,000 SKILL.md files or 2 MiB of front
// matter in all, whichever comes first (roots in precedence order): the
// YAML parse is what a SKILL.md costs. Each bound that stops a search is
// a Cut. When a folder
// holds more entries than are left, the ones read are the first the
// filesystem lists.
//
// Name clashes are settled before eligibility, by source, highest first:
// the workspace's skills/, the workspace's .agents/skills, the user's
// ~/.agents/skills, the managed folder, bundled roots, then the extra
// folders of the config; within one source the roots in the order given,
// and within one root the first path in byte order. The loser is reported
// as shadowed, naming the winner's source and location, even when the
// winner later turns out ineligible. The discovery bounds above hold
// across all of these roots.
package skills
