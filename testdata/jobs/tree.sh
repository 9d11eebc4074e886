# A job that starts a process of every shape gputop run must end with it
# (e2e_jobguard_test.go). $1 is a marker every sleep carries in its argument,
# so that anything left of the job can be found; $2 is a file the job lists
# its processes in, a name and a pid a line, then "ready".
m=$1 pids=$2
sleep 1000$m &
echo "child $!" >> "$pids"
sh -c "sleep 1000$m & echo \"grandchild \$!\" >> '$pids'; wait" &
echo "parent $!" >> "$pids"
# Leaves the session, and its parent exits at once: orphaned.
setsid sh -c "sleep 1000$m & echo \"orphan \$!\" >> '$pids'"
sh -c "trap '' TERM; echo \"deaf \$\$\" >> '$pids'; while :; do sleep 0.05$m; done" &
echo "job $$" >> "$pids"
echo ready >> "$pids"
wait
