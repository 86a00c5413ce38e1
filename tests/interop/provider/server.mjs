// A stock oidc-provider for tests/interop, on loopback: the device flow and refresh tokens for the
// public client pos-terminal, scopes openid offline_access posapi, its development login and consent
// pages, and introspection for a confidential client "checker". --rotate turns refresh-token rotation
// on (a refresh token used twice then revokes the grant, as the provider always does for spent ones).
// Prints "READY <issuer>" once it listens; ends when its standard input closes.
import http from 'node:http';
import Provider from 'oidc-provider';

const rotate = process.argv.includes('--rotate');
let callback = null;
const server = http.createServer((req, res) => callback(req, res));

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'pos-terminal',
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: 'checker',
        client_secret: 'checker-secret',
        grant_types: [],
        response_types: [],
        redirect_uris: [],
      },
    ],
    scopes: ['openid', 'offline_access', 'posapi'],
    features: {
      deviceFlow: { enabled: true },
      devInteractions: { enabled: true },
      introspection: { enabled: true },
    },
    rotateRefreshToken: rotate,
    cookies: { keys: ['interop-only-cookie-key'] },
    ttl: { AccessToken: 3600, DeviceCode: 600, RefreshToken: 86400, Grant: 86400, Session: 86400, Interaction: 600 },
  });
  provider.proxy = false;
  callback = provider.callback();
  process.stdout.write(`READY ${issuer}\n`);
});

process.stdin.on('end', () => server.close(() => process.exit(0)));
process.stdin.resume();
