import { type LaneKnobs, laneKnobs } from './lane-knobs.ts';
import { type LaneProfile, laneProfile } from './lane-profiles.ts';
import { type LaneResponder, laneResponder } from './lane-responder.ts';
import { type ProviderServer, type ProviderServerOptions, startProviderServer } from './provider-server.ts';

export interface LaneServer {
  readonly profile: LaneProfile;
  readonly server: ProviderServer;
  readonly responder: LaneResponder;
}

export interface StartLaneOptions extends Omit<ProviderServerOptions, 'respond'> {
  /** Default: the profile's name, so two lanes of one profile differ only if seeded apart. */
  readonly seed?: number | string;
  readonly knobs?: Partial<LaneKnobs>;
}

/** A provider server playing a named lane profile: every wire format, one timing behaviour. */
export async function startLane(
  profile: string | LaneProfile,
  options: StartLaneOptions = {},
): Promise<LaneServer> {
  const resolved =
    typeof profile === 'string'
      ? laneProfile(profile, options.knobs)
      : { ...profile, knobs: laneKnobs({ ...profile.knobs, ...options.knobs }, `profile "${profile.name}"`) };
  const responder = laneResponder(resolved.knobs, { seed: options.seed ?? resolved.name });
  const { seed: _seed, knobs: _knobs, ...serverOptions } = options;
  const server = await startProviderServer({ ...serverOptions, respond: responder.respond });
  return { profile: resolved, server, responder };
}
