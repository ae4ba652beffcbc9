import { Context } from "effect"

// Process-wide serving state: requests in flight and whether the server is draining for shutdown.
export const lifecycle = { inFlight: 0, draining: false }

/** The peer address of the connection, provided per request by the Bun server (see BunServe.ts). */
export class ClientAddress extends Context.Tag("ClientAddress")<ClientAddress, string>() {}
