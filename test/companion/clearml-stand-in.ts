/**
 * A stand-in for the few ClearML API server calls companion mode makes
 * (test code only: the real server needs MongoDB and Elasticsearch). Its
 * answers follow allegroai/clearml-server field for field:
 *
 * - Authentication (apiserver/server_init/request_handlers.py
 *   `_create_api_call`): the `clearml_token_basic` cookie counts as
 *   `Authorization: Bearer <cookie>`, the header wins; tokens are HS256 JWTs
 *   signed with `secure.auth.token_secret`
 *   (apiserver/service_repo/auth/payload/token.py `Token.decode`), the
 *   caller's company is `identity.company`. Errors: 401/20 `Unauthorized
 *   (missing credentials)`, 401/30 `Invalid token (invalid jwt token)`
 *   (apiserver/service_repo/auth/auth.py, apierrors `unauthorized`).
 * - `tasks.get_all_ex` / `models.get_all_ex` (apiserver/services/tasks.py,
 *   apiserver/services/models.py): `Task.get_many_with_join` over the
 *   caller's company, plus public (company "") records when `allow_public`
 *   (default true, apiserver/apimodels/tasks.py `GetAllReq`); an `id`
 *   list selects by id; hidden tasks are not excluded when `id` is given
 *   (`_hidden_query`); paging caps at 500 (apiserver/database/model/base.py
 *   `validate_paging`). Projection (apiserver/database/projection.py):
 *   `id` always; `company` is a reference field, rendered `{"id": <id>}`,
 *   `{}` for a public record (`_ReferenceProxy`); `project.name` joins the
 *   project as `{"id", "name"}`, `project` alone gives `{"id"}`.
 *   Answer `{"tasks": [...]}` / `{"models": [...]}` in the envelope of
 *   apiserver/service_repo/apicall.py.
 * - `projects.get_all_ex` (apiserver/services/projects.py `get_all_ex`,
 *   apiserver/apimodels/projects.py `ProjectsGetRequest`): the same
 *   company/public rule (`allow_public` default true); hidden projects are
 *   left out unless `search_hidden` or an `id` list is given
 *   (`_hidden_query`); with `search_hidden` a hidden project is marked
 *   `"hidden": true`; answer `{"projects": [...]}`, projected as above.
 *
 * Test switches: `down` (connections refused), `delayMs` (slow answers),
 * `leakCompany` (answers another company's records, a misbehaving server),
 * and a count of the calls per endpoint.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface StandInTask {
  id: string;
  company: string;
  name: string;
  project?: { id: string; name: string };
  status: string;
  type?: string;
  system_tags?: string[];
}

export interface StandInProject {
  id: string;
  company: string;
  /** Full name, `/`-separated (apiserver/database/model/project.py). */
  name: string;
  system_tags?: string[];
}

export interface StandInModel {
  id: string;
  company: string;
  name: string;
  project?: { id: string; name: string };
  ready: boolean;
}

const MAX_PAGE_SIZE = 500;

export class ClearmlStandIn {
  readonly tasks = new Map<string, StandInTask>();
  readonly models = new Map<string, StandInModel>();
  readonly projects = new Map<string, StandInProject>();
  readonly calls = new Map<string, number>();
  delayMs = 0;
  leakCompany = false;
  private server?: Server;
  private port = 0;

  constructor(readonly tokenSecret: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops listening (the port then refuses connections). */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** A token as ClearML's auth.login issues it (apiserver/bll/auth/__init__.py `get_token_for_user`). */
  issueToken(user: string, company: string, expirationSec = 3600): string {
    const iat = Math.floor(Date.now() / 1000);
    return jwt.sign(
      {
        identity: { user, company, role: 'user', user_name: `name of ${user}`, company_name: `name of ${company}` },
        auth_type: 'Bearer',
        iat,
        exp: iat + expirationSec,
        session_id: randomUUID().replaceAll('-', ''),
        env: '<unknown>',
        api_version: '2.31',
        server_version: '2.0.0',
        server_build: '1',
        feature_set: 'basic',
      },
      this.tokenSecret,
      { algorithm: 'HS256' },
    );
  }

  callCount(endpoint: string): number {
    return this.calls.get(endpoint) ?? 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const endpoint = (req.url ?? '').replace(/^\/+(v\d+\.\d+\/)?/, '').split('?')[0]!;
    this.calls.set(endpoint, (this.calls.get(endpoint) ?? 0) + 1);
    const send = (code: number, subcode: number, msg: string, data: unknown) => {
      const meta = {
        id: randomUUID().replaceAll('-', ''),
        trx: randomUUID().replaceAll('-', ''),
        endpoint: { name: endpoint, requested_version: '2.31', actual_version: '1.0' },
        result_code: code,
        result_subcode: subcode,
        result_msg: msg,
        error_stack: code === 200 ? '' : null,
        error_data: {},
      };
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ meta, data }));
    };

    const cookie = /(?:^|;\s*)clearml_token_basic=([^;]*)/.exec(req.headers.cookie ?? '')?.[1];
    const authorization = req.headers.authorization ?? (cookie ? `Bearer ${cookie}` : undefined);
    if (!authorization) return send(401, 20, 'Unauthorized (missing credentials)', {});
    let company: string;
    try {
      if (!authorization.startsWith('Bearer ')) throw new Error('bad authentication header type');
      const payload = jwt.verify(authorization.slice(7), this.tokenSecret, { algorithms: ['HS256'] }) as jwt.JwtPayload;
      company = payload.identity.company;
    } catch {
      return send(401, 30, 'Invalid token (invalid jwt token)', {});
    }

    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    const ids: string[] | undefined = body.id === undefined ? undefined : Array.isArray(body.id) ? body.id : [body.id];
    const allowPublic = body.allow_public ?? true;
    const onlyFields: string[] = body.only_fields ?? [];
    const pageSize = Math.min(body.page_size ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
    const visible = (c: string) => this.leakCompany || c === company || (allowPublic && c === '');

    if (endpoint === 'tasks.get_all_ex' || endpoint === 'models.get_all_ex') {
      const store = endpoint === 'tasks.get_all_ex' ? this.tasks : this.models;
      const records = [...store.values()]
        .filter((r) => visible(r.company) && (ids === undefined || ids.includes(r.id)))
        .filter((r) => ids !== undefined || !('system_tags' in r && r.system_tags?.includes('hidden')))
        .slice(0, pageSize)
        .map((r) => project(r as unknown as Record<string, unknown>, onlyFields));
      return send(200, 0, 'OK', endpoint === 'tasks.get_all_ex' ? { tasks: records } : { models: records });
    }
    if (endpoint === 'projects.get_all_ex') {
      const searchHidden = body.search_hidden === true;
      const records = [...this.projects.values()]
        .filter((p) => visible(p.company) && (ids === undefined || ids.includes(p.id)))
        .filter((p) => searchHidden || ids !== undefined || !p.system_tags?.includes('hidden'))
        .slice(0, pageSize)
        .map((p) => {
          const out = project(p as unknown as Record<string, unknown>, onlyFields);
          if (searchHidden && p.system_tags?.includes('hidden')) out.hidden = true;
          return out;
        });
      return send(200, 0, 'OK', { projects: records });
    }
    return send(404, 0, `Unable to find endpoint for name ${endpoint} and version 2.31`, {});
  }
}

/** only_fields as apiserver/database/projection.py applies it to these few fields. */
function project(record: Record<string, unknown>, onlyFields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: record.id };
  const fields = onlyFields.length === 0 ? Object.keys(record) : onlyFields;
  for (const field of fields) {
    if (field === 'company') out.company = record.company ? { id: record.company } : {};
    else if (field === 'project' || field === 'project.name') {
      const p = record.project as { id: string; name: string } | undefined;
      if (p)
        out.project = field === 'project.name' || onlyFields.length === 0 ? { id: p.id, name: p.name } : { id: p.id };
    } else if (field in record) out[field] = record[field];
  }
  return out;
}
