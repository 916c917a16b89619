import { requireUserWith } from "@/lib/api/page-guard";
import { Shell } from "@/components/ui/shell";
import { Users } from "@/components/settings/users";

export const dynamic = "force-dynamic";
export const metadata = { title: "Accounts" };

export default async function UsersPage() {
  const user = await requireUserWith("users:manage", "/settings/users");
  return (
    <Shell user={user} crumbs={[{ label: "Accounts" }]}>
      <Users selfId={user.id} />
    </Shell>
  );
}
