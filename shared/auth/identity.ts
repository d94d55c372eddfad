/** The authenticated caller of one call (protocol.md §7.1). */
export interface Identity {
  readonly user: string;
  readonly company: string;
  readonly role: string;
  readonly user_name?: string;
  readonly company_name?: string;
}
