import type { Socket, TCPSocketListener } from "bun"

/**
 * A loopback TCP proxy to a database that a test can cut and restore, like a database restart, or hang:
 * connections stay open and new ones are accepted, but nothing is forwarded any more, like a silent network.
 */
export const tcpProxy = async (target: { readonly host: string; readonly port: number }) => {
  type Link = { upstream?: Socket<Link>; downstream?: Socket<Link>; pending: Array<Uint8Array> }
  const open = new Set<Socket<Link>>()
  let listener: TCPSocketListener<Link> | undefined
  let port = 0
  let hung = false

  const start = () => {
    listener = Bun.listen<Link>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          open.add(client)
          client.data = { pending: [], downstream: client }
          if (hung) return // accepted, never connected: the handshake waits forever
          void Bun.connect<Link>({
            hostname: target.host,
            port: target.port,
            socket: {
              open(server) {
                open.add(server)
                server.data = client.data
                client.data.upstream = server
                for (const chunk of client.data.pending) server.write(chunk)
                client.data.pending = []
              },
              data(server, chunk) {
                if (!hung) server.data.downstream?.write(chunk)
              },
              close(server) {
                open.delete(server)
                server.data.downstream?.end()
              },
              error(server) {
                server.data.downstream?.end()
              }
            }
          }).catch(() => client.end())
        },
        data(client, chunk) {
          if (hung) return
          if (client.data.upstream === undefined) client.data.pending.push(new Uint8Array(chunk))
          else client.data.upstream.write(chunk)
        },
        close(client) {
          open.delete(client)
          client.data.upstream?.end()
        },
        error(client) {
          client.data.upstream?.end()
        }
      }
    })
    port = listener.port
  }

  start()
  return {
    port,
    /** Refuse new connections and reset every open one. */
    cut: () => {
      listener?.stop(true)
      for (const socket of open) socket.terminate()
      open.clear()
    },
    /** Stop forwarding in both directions, keeping every connection open. */
    hang: () => {
      hung = true
    },
    /** After a hang or a cut: forward again (connections that lost bytes while hung are reset). */
    restore: () => {
      if (hung) {
        hung = false
        for (const socket of open) socket.terminate()
        open.clear()
        return
      }
      start()
    },
    close: () => {
      listener?.stop(true)
      for (const socket of open) socket.terminate()
    }
  }
}
