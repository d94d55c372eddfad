/**
 * The three servers of the local stack and the names users see for them:
 * one table, so that install hints, port errors and log files agree.
 */
export type StackServer = 'nats' | 'influxdb' | 'redis';

export const STACK_SERVERS: readonly StackServer[] = ['nats', 'influxdb', 'redis'];

export interface StackServerNames {
  readonly label: string;
  /** Executable the Debian package installs. */
  readonly binary: string;
  readonly debianPackage: string;
  /** Environment variable of the fixed port `npm start` uses. */
  readonly portVar: string;
  /** Environment variable that switches to an existing server. */
  readonly urlVar: string;
  /** systemd unit the Debian package may have started on the default port. */
  readonly systemUnit: string;
}

export const SERVER_NAMES: Readonly<Record<StackServer, StackServerNames>> = {
  nats: {
    label: 'NATS',
    binary: 'nats-server',
    debianPackage: 'nats-server',
    portVar: 'NATS_PORT',
    urlVar: 'NATS_URL',
    systemUnit: 'nats-server',
  },
  influxdb: {
    label: 'InfluxDB',
    binary: 'influxd',
    debianPackage: 'influxdb',
    portVar: 'INFLUX_PORT',
    urlVar: 'INFLUX_URL',
    systemUnit: 'influxdb',
  },
  redis: {
    label: 'Redis',
    binary: 'redis-server',
    debianPackage: 'redis-server',
    portVar: 'REDIS_PORT',
    urlVar: 'REDIS_URL',
    systemUnit: 'redis-server',
  },
};

export const MANUAL_INSTALL_COMMAND = `sudo apt-get install ${STACK_SERVERS.map(
  (s) => SERVER_NAMES[s].debianPackage,
).join(' ')}`;
