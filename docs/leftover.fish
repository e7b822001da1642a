# fish completion for leftover(1); installed as
# share/fish/vendor_completions.d/leftover.fish. The option lists are each
# subcommand's --help: tests/e2e/test_completion.py fails when they drift.
set -l commands scan explain clean restore rules cache
complete -c leftover -f
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -a scan -d 'find artifacts that would not load or are no longer built'
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -a explain -d 'show what the loader would do for one file'
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -a clean -d 'quarantine what is stale (undo with restore)'
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -a restore -d 'put a quarantined set back'
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -a rules -d 'show the effective rules, or --check a rule file'
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -a cache -d 'show or drop the verdict cache of a scan'
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -l version -d 'print the version'
complete -c leftover -n "not __fish_seen_subcommand_from $commands" -s h -l help -d 'show the commands'

# options that say how files are judged (scan, clean, explain)
for c in scan clean explain
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l python -r -F -d 'interpreter that imports the Python extension modules'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l host -r -F -d 'program that loads the other shared objects'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l library-path -r -a '(__fish_complete_directories)' -d 'directories standing for LD_LIBRARY_PATH'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l sysroot -r -a '(__fish_complete_directories)' -d 'root the loader reads absolute paths in'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l hwcaps -r -d 'glibc-hwcaps levels of the CPU that will load the files'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l trust-tree -d 'vouch for the scanned trees: run the programs they name'
end
for c in scan clean
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l rules -r -F -d 'read this rule file last'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -s j -l jobs -x -d 'threads to walk and judge with'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -l format -x -a 'text json junit sarif' -d 'output format'
    complete -c leftover -n "__fish_seen_subcommand_from $c" -a '(__fish_complete_directories)' -d 'build directory'
end
for c in scan explain clean restore rules cache
    complete -c leftover -n "__fish_seen_subcommand_from $c" -s h -l help -d 'show this help'
end
for c in scan clean restore explain
    complete -c leftover -n "__fish_seen_subcommand_from $c" -s v -l verbose -d 'say more'
end

complete -c leftover -n '__fish_seen_subcommand_from scan' -l reconfigure -d 'run cmake when the File API reply is missing or old'
complete -c leftover -n '__fish_seen_subcommand_from scan' -l all -d 'also list orphaned object and bookkeeping files'
complete -c leftover -n '__fish_seen_subcommand_from scan' -l source -x -a '(__fish_complete_directories)' -d 'the source tree'
complete -c leftover -n '__fish_seen_subcommand_from scan' -l no-cache -d 'judge every file afresh, without the verdict cache'
complete -c leftover -n '__fish_seen_subcommand_from scan' -l clear-cache -d 'drop the verdict cache, then scan without it'

complete -c leftover -n '__fish_seen_subcommand_from explain' -F

complete -c leftover -n '__fish_seen_subcommand_from clean' -l broken -d 'also act on files still built but would not load'
complete -c leftover -n '__fish_seen_subcommand_from clean' -l suspected -d 'also act on files only suspected stale (no build record)'
complete -c leftover -n '__fish_seen_subcommand_from clean' -l delete -d 'unlink instead of quarantining'
complete -c leftover -n '__fish_seen_subcommand_from clean' -s n -l dry-run -d 'say what would be done'
complete -c leftover -n '__fish_seen_subcommand_from clean restore' -l wait -d 'wait for another clean of the tree'
complete -c leftover -n '__fish_seen_subcommand_from clean' -l fail-on -x -a 'never broken stale' -d 'what left in the tree fails the run'
complete -c leftover -n '__fish_seen_subcommand_from clean' -l junit -r -F -d 'also write a JUnit XML report'
complete -c leftover -n '__fish_seen_subcommand_from clean' -l sarif -r -F -d 'also write a SARIF log'
complete -c leftover -n '__fish_seen_subcommand_from clean' -l purge-quarantine -d 'remove quarantine sets instead'
complete -c leftover -n '__fish_seen_subcommand_from clean' -l older-than -x -d 'only sets older than DAYS'
complete -c leftover -n '__fish_seen_subcommand_from clean' -s q -l quiet -d 'print nothing when there is nothing to clean'

complete -c leftover -n '__fish_seen_subcommand_from restore' -l list -d 'list the quarantine sets'
complete -c leftover -n '__fish_seen_subcommand_from restore' -a '(__fish_complete_directories)' -d 'build directory'

complete -c leftover -n '__fish_seen_subcommand_from rules' -l show-origin -d 'prefix each line with where it came from'
complete -c leftover -n '__fish_seen_subcommand_from rules' -l rules -r -F -d 'read this rule file last'
complete -c leftover -n '__fish_seen_subcommand_from rules' -l check -d 'validate rule files'
complete -c leftover -n '__fish_seen_subcommand_from rules' -F

complete -c leftover -n '__fish_seen_subcommand_from cache; and not __fish_seen_subcommand_from info clear' -a info -d 'where the verdict cache is, and whether the next scan could use it'
complete -c leftover -n '__fish_seen_subcommand_from cache; and not __fish_seen_subcommand_from info clear' -a clear -d 'remove the verdict cache'
complete -c leftover -n '__fish_seen_subcommand_from cache; and __fish_seen_subcommand_from info clear' -a '(__fish_complete_directories)' -d 'scanned directory'
