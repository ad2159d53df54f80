# fish completion for prs: it asks `prs __complete` for the words to offer.
# Written by scripts/gen-completions.mjs from src/completion/scripts.ts; do not edit by hand.
# fish:
#   prs completion fish > ~/.config/fish/completions/prs.fish

function __prs_complete
    set -l token (commandline -ct)
    set -l out (command prs __complete -- (commandline -opc)[2..-1] $token 2>/dev/null)
    set -l prefix (string match -r -- '^--[^=]*=' $token)
    set token (string replace -r -- '^--[^=]*=' '' $token)
    switch "$out"
        case :files
            __fish_complete_path $token | string replace -r -- '^' "$prefix"
        case :dirs
            __fish_complete_directories $token '' | string replace -r -- '^' "$prefix"
        case '*'
            string join \n -- $out
    end
end

complete -c prs -f -a '(__prs_complete)'
