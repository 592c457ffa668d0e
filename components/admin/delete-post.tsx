/** Deleting a post from the console (moderation queue, reports, a user's page). */
import { deletePostAction } from "@/lib/web/admin/actions";
import { Confirm } from "./confirm";
import { Back } from "./parts";

/** The delete behind Confirm's second click; the action returns to `back`. */
export function DeletePost({ code, back, label = "Delete" }: { code: string; back: string; label?: string }) {
  return (
    <Confirm label={label} confirm={`Delete ${code} for good`} action={deletePostAction}>
      <Back path={back} />
      <input type="hidden" name="code" value={code} />
    </Confirm>
  );
}
