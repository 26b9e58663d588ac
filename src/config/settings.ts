import { FLEET_SETTINGS } from './fleet-settings.ts';
import { KUBE_SETTINGS } from './kube-settings.ts';
import { LISTENER_SETTINGS } from './listener-settings.ts';
import { PROBE_SETTINGS } from './probe-settings.ts';
import type { Setting, SettingKey } from './setting.ts';

/** Every setting by key, in the order the help text and README list them; typed per key. */
export const SETTING_TABLE: { readonly [K in SettingKey]: Setting<K> } = { ...PROBE_SETTINGS, ...KUBE_SETTINGS, ...FLEET_SETTINGS, ...LISTENER_SETTINGS };

/** Every setting, in the order the help text and README list them. */
export const SETTINGS: readonly Setting[] = Object.values(SETTING_TABLE);
