import {
  type ConsoleAccess,
  type ConsoleInvitation,
  type ConsoleOrganization,
  type ConsoleOrganizationCreate,
  type ConsoleOrganizationUpdate,
  type ConsoleStaffAction,
  type ConsoleStaffQuery,
  type ConsoleStaffUser,
  consoleAccessSchema,
  consoleInvitationResultSchema,
  consoleOrganizationListSchema,
  consoleOrganizationSchema,
  consoleStaffListSchema,
  consoleStaffUserSchema,
} from '@entry/domain';
import { type CallOptions, type HttpClient, requireParameter } from './http.ts';
import { plainReader } from './wire.ts';

/**
 * The operator console (`/api/console/v1/`), with the token of the client's portal: an admin's for
 * every organization, a customer manager's for their own organization's staff.
 */
export interface ConsoleApi {
  /** GET /access: whether the console serves the session (admins and customer managers). */
  access(options?: CallOptions): Promise<ConsoleAccess>;
  /** GET /organizations (admins). */
  organizations(search?: string, options?: CallOptions): Promise<ConsoleOrganization[]>;
  /** POST /organizations (admins). */
  createOrganization(request: ConsoleOrganizationCreate, options?: CallOptions): Promise<ConsoleOrganization>;
  /** PATCH /organizations/:customerId (admins). */
  updateOrganization(
    customerId: number,
    request: ConsoleOrganizationUpdate,
    options?: CallOptions,
  ): Promise<ConsoleOrganization>;
  /** GET /staff. */
  staff(query: ConsoleStaffQuery, options?: CallOptions): Promise<ConsoleStaffUser[]>;
  /** POST /staff: the user is mailed a one-use link that sets the first password. */
  invite(request: ConsoleInvitation, options?: CallOptions): Promise<ConsoleStaffUser>;
  /** POST /staff/:userId/{action}. */
  act(userId: number, action: ConsoleStaffAction, options?: CallOptions): Promise<ConsoleStaffUser>;
  /** PATCH /staff/:userId/manager (admins). */
  setManager(userId: number, manager: boolean, options?: CallOptions): Promise<ConsoleStaffUser>;
}

const base = '/api/console/v1';
const accessReader = plainReader(consoleAccessSchema);
const organizationReader = plainReader(consoleOrganizationSchema);
const organizationListReader = plainReader(consoleOrganizationListSchema);
const staffUserReader = plainReader(consoleStaffUserSchema);
const staffListReader = plainReader(consoleStaffListSchema);
const invitationReader = plainReader(consoleInvitationResultSchema);

export function createConsoleApi(http: HttpClient): ConsoleApi {
  const userPath = (userId: number, action: string) =>
    `${base}/staff/${requireParameter('userId', userId)}/${action}`;
  return {
    access: (options = {}) =>
      http.call({ ...options, method: 'GET', path: `${base}/access`, reader: accessReader, listed: [] }),
    async organizations(search, options = {}) {
      const list = await http.call({
        ...options,
        method: 'GET',
        path: `${base}/organizations`,
        query: { search: search === '' ? undefined : search },
        reader: organizationListReader,
        listed: [],
      });
      return list.organizations;
    },
    createOrganization: (request, options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: `${base}/organizations`,
        body: request,
        reader: organizationReader,
        listed: [409],
      }),
    updateOrganization: (customerId, request, options = {}) =>
      http.call({
        ...options,
        method: 'PATCH',
        path: `${base}/organizations/${requireParameter('customerId', customerId)}`,
        body: request,
        reader: organizationReader,
        listed: [404],
      }),
    async staff(query, options = {}) {
      const list = await http.call({
        ...options,
        method: 'GET',
        path: `${base}/staff`,
        query: { kind: query.kind, customerId: query.customerId, search: query.search || undefined },
        reader: staffListReader,
        listed: [404],
      });
      return list.users;
    },
    async invite(request, options = {}) {
      const invited = await http.call({
        ...options,
        method: 'POST',
        path: `${base}/staff`,
        body: request,
        reader: invitationReader,
        listed: [404, 409],
      });
      return invited.user;
    },
    act: (userId, action, options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: userPath(userId, action),
        reader: staffUserReader,
        listed: [404, 409],
      }),
    setManager: (userId, manager, options = {}) =>
      http.call({
        ...options,
        method: 'PATCH',
        path: userPath(userId, 'manager'),
        body: { manager },
        reader: staffUserReader,
        listed: [404],
      }),
  };
}
