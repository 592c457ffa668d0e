import { FoldersPanel } from "@/components/dashboard/folders-panel";

export const metadata = { title: "Folders" };

export default function FoldersPage() {
  return <FoldersPanel />;
}
