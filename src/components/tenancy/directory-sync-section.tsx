"use client";

import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type {
  CreatedScimToken,
  ScimGroupSummary,
  ScimRequestEntry,
  ScimToken,
  ScimUserSummary,
} from "@/lib/schemas/scim";
import { MAX_SCIM_TOKENS, SCIM_BASE_PATH } from "@/lib/scim";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { roleChoicesOptions } from "@/components/identity/queries";
import { Badge } from "@/components/ui/badge";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { HeadedSection } from "@/components/ui/page-header";
import { ListView, ResourceSection } from "@/components/ui/resource-section";
import { Fact, SecretField, ShownOnceDialog } from "@/components/ui/secret-field";
import { mutedText, secondaryButton } from "@/components/ui/styles";
import { Cell, td } from "@/components/ui/table";
import { CodeList, WhenCell } from "@/components/ui/values";
import {
  scimGroupListOptions,
  scimRequestListOptions,
  scimTokenListOptions,
  scimUserListOptions,
} from "./directory-sync-queries";

// An organization's directory sync (SCIM 2.0): the base URL and a token to enter at the directory
// (Okta, Entra ID…), the tokens (created with their value shown once, revoked), the people and
// groups the directory provisioned, which org roles each group grants, and the directory's latest
// requests with how they ended. The forms load when first opened (./directory-sync-forms.tsx).

const ScimTokenForm = onDemand(() => import("./directory-sync-forms").then((m) => m.ScimTokenForm), {
  loading: () => <FormLoading />,
});
const GroupRolesForm = onDemand(() => import("./directory-sync-forms").then((m) => m.GroupRolesForm), {
  loading: () => <FormLoading />,
});

const subsection = "mt-10";

/** A request's path under the base URL ("/Users/…"), as the directory's admin configured it. */
const relativePath = (path: string) =>
  path.startsWith(SCIM_BASE_PATH) ? path.slice(SCIM_BASE_PATH.length) || "/" : path;

/** `origin`: where the app answers (the SCIM service names its resources under it). */
export function DirectorySyncSection({ orgId, origin }: { orgId: string; origin: string }) {
  const baseUrl = `${origin}${SCIM_BASE_PATH}`;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [refreshing, setRefreshing] = useState(false);

  async function refreshAll() {
    setRefreshing(true);
    try {
      await queryClient.invalidateQueries(trpc.scim.pathFilter());
    } finally {
      setRefreshing(false);
    }
  }

  return (
    <HeadedSection
      title="Directory sync"
      level={2}
      description="Your directory (Okta, Entra ID, JumpCloud…) provisions the organization’s people and groups over SCIM 2.0: it adds them, suspends them here when they are deactivated there, and keeps groups’ members up to date. A group grants the org roles you map it to."
      actions={
        <button type="button" onClick={() => void refreshAll()} disabled={refreshing} className={secondaryButton}>
          {refreshing ? "Refreshing…" : "Refresh"}
        </button>
      }
    >
      <div className="mt-4 max-w-2xl">
        <SecretField label="SCIM base URL" value={baseUrl} copyLabel="Copy base URL" />
        <p className={`text-sm ${mutedText}`}>
          Enter it at your directory with a token below, sent as <code>Authorization: Bearer scim_…</code>.
        </p>
      </div>
      <TokensSection orgId={orgId} baseUrl={baseUrl} />
      <UsersSection orgId={orgId} />
      <GroupsSection orgId={orgId} />
      <RequestsSection orgId={orgId} />
    </HeadedSection>
  );
}

function TokensSection({ orgId, baseUrl }: { orgId: string; baseUrl: string }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(scimTokenListOptions(trpc, orgId));
  const [created, setCreated] = useState<CreatedScimToken | null>(null);
  const refresh = () => queryClient.invalidateQueries(trpc.scim.listTokens.pathFilter());

  return (
    <ResourceSection<ScimToken>
      title="SCIM tokens"
      className={subsection}
      description={`What your directory authenticates with. At most ${MAX_SCIM_TOKENS} live tokens; a revoked token stays listed.`}
      query={list}
      columns={["Name", "Prefix", "Created", "Last used", "State"]}
      itemName={(token) => `token ${token.name}`}
      actions={(token, open) =>
        token.revoked_at
          ? []
          : [{ label: "Revoke", ariaLabel: `Revoke token ${token.name}`, onClick: open.remove, danger: true }]
      }
      cells={(token) => (
        <>
          <th scope="row" className={`${td} text-left font-medium break-all`}>
            {token.name}
          </th>
          <Cell className="font-mono whitespace-nowrap">{token.prefix}…</Cell>
          <WhenCell iso={token.created_at} />
          <WhenCell iso={token.last_used_at} none="Never" />
          <Cell>
            {token.revoked_at ? (
              <Badge tone="bad" title={`Revoked ${token.revoked_at}`}>
                revoked
              </Badge>
            ) : (
              <Badge tone="good">active</Badge>
            )}
          </Cell>
        </>
      )}
      empty={{
        title: "No SCIM tokens",
        body: "Create a token, then enter it with the base URL at your directory.",
      }}
      create={{ label: "Create token" }}
      editor={{
        createOnly: true,
        title: () => "Create a SCIM token",
        description: () => "Its value is shown once, when it is created.",
        form: (_token, controls) => <ScimTokenForm orgId={orgId} controls={controls} onCreated={setCreated} />,
      }}
      remove={{
        title: (token) => `Revoke the token ${token.name}?`,
        body: () => (
          <>
            Your directory’s next request with it is refused, and provisioning stops until it has a new token. People
            and groups it provisioned stay as they are.
          </>
        ),
        confirmLabel: "Revoke token",
        pendingLabel: "Revoking…",
        run: (token) => client.scim.revokeToken.mutate({ org_id: orgId, credential_id: token.id }),
        notice: (token) => `Token ${token.name} revoked.`,
      }}
      refresh={refresh}
    >
      <ShownOnceDialog
        secret={created?.token ?? null}
        title="Your new SCIM token"
        label="SCIM token"
        noun="token"
        onClose={() => setCreated(null)}
        facts={
          created && (
            <>
              <Fact term="Name">{created.name}</Fact>
              <Fact term="Base URL">
                <span className="font-mono">{baseUrl}</span>
              </Fact>
              <Fact term="Send it as">
                <span className="font-mono">Authorization: Bearer {created.prefix}…</span>
              </Fact>
            </>
          )
        }
      >
        <p className={`text-sm ${mutedText}`}>If it is lost, create a new token and revoke this one.</p>
      </ShownOnceDialog>
    </ResourceSection>
  );
}

function UsersSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const list = useInfiniteQuery(scimUserListOptions(trpc, orgId));
  return (
    <HeadedSection
      title="Provisioned people"
      level={2}
      className={subsection}
      description="The people your directory provisioned. A suspended person keeps their account, but their membership reaches nothing here."
    >
      <div className="mt-4">
        <ListView<ScimUserSummary>
          query={list}
          caption="Provisioned people"
          noun="provisioned people"
          columns={["User name", "Email", "Display name", "State", "Created"]}
          row={(user) => (
            <>
              <th scope="row" className={`${td} text-left font-medium break-all`}>
                {user.user_name}
              </th>
              <Cell className="break-all">{user.email ?? <span className={mutedText}>—</span>}</Cell>
              <Cell>{user.display_name ?? <span className={mutedText}>—</span>}</Cell>
              <Cell>{user.active ? <Badge tone="good">active</Badge> : <Badge tone="warn">suspended</Badge>}</Cell>
              <WhenCell iso={user.created_at} />
            </>
          )}
          empty={{
            title: "Nobody provisioned yet",
            body: "The people your directory assigns to svc appear here once it has a token.",
          }}
        />
      </div>
    </HeadedSection>
  );
}

function GroupsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useInfiniteQuery(scimGroupListOptions(trpc, orgId));
  const roles = useQuery(roleChoicesOptions(trpc, "org"));
  const roleName = (roleId: string) => roles.data?.data.find((role) => role.id === roleId)?.name ?? roleId;
  // A mapping changes members' roles: the people's list is refreshed with the groups'.
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.scim.listGroups.pathFilter()),
      queryClient.invalidateQueries(trpc.scim.listUsers.pathFilter()),
    ]);

  return (
    <ResourceSection<ScimGroupSummary>
      title="Groups"
      className={subsection}
      description="The groups your directory pushed. Their members hold the org roles a group is mapped to, and lose them when they leave it. You can only map roles whose permissions you hold."
      query={list}
      columns={["Group", "Members", "Roles"]}
      itemName={(group) => group.display_name}
      actions={(group, open) => [
        { label: "Edit roles", ariaLabel: `Edit roles ${group.display_name}`, onClick: open.edit },
      ]}
      cells={(group) => (
        <>
          <th scope="row" className={`${td} text-left font-medium break-all`}>
            {group.display_name}
          </th>
          <Cell>{group.member_count}</Cell>
          <Cell>
            {group.role_ids.length === 0 ? (
              <span className={mutedText}>none</span>
            ) : (
              <CodeList items={group.role_ids.map(roleName)} inline />
            )}
          </Cell>
        </>
      )}
      empty={{
        title: "No groups yet",
        body: "The groups your directory pushes appear here, to map to org roles.",
      }}
      editor={{
        title: (group) => `Roles of ${group?.display_name ?? "the group"}`,
        description: () => "Changing them changes the roles of every member of the group at once.",
        form: (group, controls) => group && <GroupRolesForm orgId={orgId} group={group} controls={controls} />,
      }}
      refresh={refresh}
    />
  );
}

function RequestsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const list = useInfiniteQuery(scimRequestListOptions(trpc, orgId));
  return (
    <HeadedSection
      title="Latest requests"
      level={2}
      className={subsection}
      description="Your directory’s requests of the last 7 days, newest first, and how each ended."
    >
      <div className="mt-4">
        <ListView<ScimRequestEntry>
          query={list}
          caption="Latest requests"
          noun="requests"
          columns={["Time", "Request", "Status", "Problem", "Token"]}
          row={(request) => (
            <>
              <WhenCell iso={request.occurred_at} />
              <th scope="row" className={`${td} text-left font-normal`}>
                <span className="font-mono font-semibold">{request.method}</span>{" "}
                <span className="font-mono break-all" title={request.path}>
                  {relativePath(request.path)}
                </span>
              </th>
              <Cell>
                <Badge tone={request.status < 400 ? "good" : request.status < 500 ? "warn" : "bad"}>
                  {request.status}
                </Badge>
              </Cell>
              <Cell className="max-w-96">
                {request.scim_type || request.detail ? (
                  <>
                    {request.scim_type && <code className="font-mono text-xs">{request.scim_type}</code>}
                    {request.detail && <span className="block wrap-anywhere">{request.detail}</span>}
                  </>
                ) : (
                  <span className={mutedText}>—</span>
                )}
              </Cell>
              <Cell className="font-mono whitespace-nowrap">{request.token_prefix}…</Cell>
            </>
          )}
          empty={{
            title: "No requests yet",
            body: "Your directory’s requests appear here once it calls the base URL with a token.",
          }}
        />
      </div>
    </HeadedSection>
  );
}
