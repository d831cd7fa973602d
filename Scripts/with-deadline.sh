#!/usr/bin/env bash
# Runs a command with a deadline, so a hang fails with evidence instead of running out CI's clock:
# past SECONDS, prints the process tree and every thread's backtrace of each process under the
# command (with gdb, when it is installed), then kills them all. The command runs in the
# foreground, as this script's own process, so Ctrl-C and standard input reach it as usual.
#
#   Scripts/with-deadline.sh 1800 swift test
set -u
seconds=${1:?usage: $0 SECONDS COMMAND [ARGUMENT...]}
shift
command_pid=$$

# Every process below $1, parents before their children, this watchdog left out.
descendants() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        [ "$child" = "$watchdog" ] && continue
        echo "$child"
        descendants "$child"
    done
}

report_and_kill() {
    echo "with-deadline: '$*' still running after $seconds s; what it was doing:" >&2
    local pids pid
    pids=$(descendants "$command_pid")
    ps -o pid,ppid,etimes,stat,wchan:24,args --forest -p "$(echo "$command_pid" $pids | tr ' ' ',')" >&2
    for pid in $command_pid $pids; do
        echo "with-deadline: process $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" >&2
        if command -v gdb >/dev/null; then
            timeout 120 gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 40' 2>&1 \
                | grep -E '^(Thread|#)' >&2
        else
            for task in /proc/"$pid"/task/*; do
                echo "  thread ${task##*/}: $(cat "$task/wchan" 2>/dev/null)" >&2
            done
        fi
    done
    echo "with-deadline: killing '$*' after $seconds s" >&2
    # The command first: its children dying first could let it end by itself (a shell's `wait`).
    kill -KILL "$command_pid" $pids 2>/dev/null
}

# Whether the command is still running: a zombie (ended, not yet reaped by our caller) is not.
running() {
    local state
    state=$(ps -o stat= -p "$command_pid" 2>/dev/null) && [[ $state != Z* ]]
}

# The watchdog checks once a second, so it ends within a second of the command and no sleeping
# process outlives the command holding the caller's output open. It keeps only standard error:
# a descriptor it inherited (such as the socket through which Foundation's Process learns that
# its child ended) would otherwise stay open after the command ended.
(
    watchdog=$BASHPID
    for fd in $(ls /proc/$BASHPID/fd); do
        [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null
    done
    for ((waited = 0; waited < seconds; waited++)); do
        sleep 1
        running || exit 0
    done
    report_and_kill "$@"
) </dev/null >/dev/null &

exec "$@"
