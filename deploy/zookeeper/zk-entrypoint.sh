#!/bin/sh
# Writes zoo.cfg and myid from the environment, then runs ZooKeeper in the foreground (exec: the
# JVM is PID 1 and stops on SIGTERM). Standalone without ZK_SERVERS, a quorum peer with it.
set -eu
DATA="${ZK_DATA_DIR:-/var/lib/zookeeper}"
CLIENT_PORT="${ZK_CLIENT_PORT:-2181}"
CONF="$DATA/zoo.cfg"
mkdir -p "$DATA/data"

if [ -z "${ZK_MY_ID:-}" ]; then
  # zookeeper-2 (a StatefulSet pod) is server 3.
  ordinal="${HOSTNAME##*-}"
  case "$ordinal" in ''|*[!0-9]*) ZK_MY_ID=1 ;; *) ZK_MY_ID=$((ordinal + 1)) ;; esac
fi

cat >"$CONF" <<CFG
tickTime=${ZK_TICK_TIME:-2000}
initLimit=10
syncLimit=5
dataDir=$DATA/data
clientPort=$CLIENT_PORT
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,mntr
autopurge.snapRetainCount=3
autopurge.purgeInterval=1
CFG

MAIN=org.apache.zookeeper.server.ZooKeeperServerMain
if [ -n "${ZK_SERVERS:-}" ]; then
  MAIN=org.apache.zookeeper.server.quorum.QuorumPeerMain
  # Peers bind on every interface: a pod's own DNS name may not resolve before it is listed.
  echo "quorumListenOnAllIPs=true" >>"$CONF"
  id=1
  for server in $(echo "$ZK_SERVERS" | tr ',' ' '); do
    echo "server.$id=$server" >>"$CONF"
    id=$((id + 1))
  done
  echo "$ZK_MY_ID" >"$DATA/data/myid"
fi

CP="/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar"
exec java "-Xmx${ZK_HEAP_MB:-256}m" -Dzookeeper.log.dir="$DATA" -cp "$CP" "$MAIN" "$CONF"
