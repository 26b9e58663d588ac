import { Gauge, type Registry } from 'prom-client';

/** `etcd_probe_round_backoff_seconds` of one fleet cluster: how long its refresh is still put off (0: not). */
export class BackoffMetric {
  readonly #gauge: Gauge;

  constructor(registry: Registry) {
    this.#gauge = new Gauge({
      name: 'etcd_probe_round_backoff_seconds',
      help: "How long the fleet's refresh still puts off this cluster, whose rounds keep reaching nothing (0: not put off)",
      registers: [registry],
    });
    this.#gauge.set(0);
  }

  /** Sets the seconds left. */
  set(seconds: number): void {
    this.#gauge.set(seconds);
  }
}
